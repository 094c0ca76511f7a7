import { anomaly, type CheckResult, resultOf } from './check-result.ts';
import type { Observations } from './observations.ts';
import { describeRecovery } from './recoveries.ts';

/**
 * After every heal the sink must keep making progress until it drained what it held: no longer
 * than the bound its spec allows without progress, counted from the moment the cluster was
 * verified healthy again and from each progress after it (`stalled` when it did not; the
 * executor then restarted it, so the other checkers judge the rows after that restart). Each
 * recovery's figures are the result's notes, and so is where the schedule ended when a stall
 * cut it short.
 */
export function livenessChecker(observations: Observations): CheckResult {
  const stalled = observations.recoveries.filter((recovery) => recovery.outcome === 'stalled');
  const cut = observations.scheduleCut;
  return resultOf(
    'liveness',
    [anomaly('stalled', stalled.map(describeRecovery))],
    [
      ...observations.recoveries.map(describeRecovery),
      ...(cut === undefined
        ? []
        : [
            `the schedule ended after step ${cut.ran} of ${cut.steps}: the sink stalled there, and the steps after it were not run`,
          ]),
    ],
  );
}
