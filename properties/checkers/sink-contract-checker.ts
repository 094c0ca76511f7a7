import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * What the runtime contract asks of a running sink beyond delivery: dynamic parameters that
 * passed validation are taken (the seed's dynamic section is changed on a running pipeline), and
 * an exactly-once class cuts every epoch into batches (a value it cannot write is a give-up at
 * delivery, never a failed epoch); at-most-once in ordered mode keeps an epoch's messages pending
 * until their INSERT starts, so each reaches an INSERT, however many restarts it takes; and every
 * class warns that exactly-once is not covered exactly when its table cannot drop a replay. A sink
 * that throws instead is the sink's own failure, judged
 * here, never a harness error.
 */
export function sinkContractChecker(observations: Observations): CheckResult {
  const warning = observations.judgedWarning;
  return resultOf('sink-contract', [
    anomaly(
      'reconfigure-refused',
      observations.reconfigureFailures.map((failure) => `partition ${failure.partition}: ${failure.message}`),
    ),
    anomaly(
      'epoch-refused',
      observations.guarantee === 'exactly-once'
        ? observations.epochFailures.map((failure) => `partition ${failure.partition}: ${failure.message}`)
        : [],
    ),
    anomaly('pending-dropped', observations.pendingDropped),
    // The seed warns exactly when exactly-once is not covered (plain MergeTree, a short window).
    anomaly('warning-missing', warning?.expected === true && !warning.given ? [warning.kind] : []),
    anomaly('warning-unfounded', warning?.expected === false && warning.given ? [warning.kind] : []),
  ]);
}
