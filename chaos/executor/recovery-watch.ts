import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { HarnessError } from '../../harness/base/index.ts';
import type { RecoveryBound, RecoveryTrigger } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { SINK_CLASSES, type SinkClassName, validateDynamicParameters } from '../../sinks/index.ts';
import type { NemesisRecord } from './nemesis-record.ts';

/**
 * What a healthy cluster needs to take a chaos-sized backlog (two partitions, a few epochs, down
 * to one row per batch: about a hundred INSERTs of 15-75 ms) beside the sink's own waits.
 */
export const RECOVERY_SLACK_MS = 10_000;
/** How long the cluster may take to be healthy again after a heal; past it the run is an infrastructure error. */
const HEALTHY_LIMIT_MS = 90_000;
/** At a stall the cluster must still be healthy at once, or the stall is the cluster's. */
const STILL_HEALTHY_LIMIT_MS = 5_000;

/**
 * The bound a sink is given to drain once the cluster is healthy again, from what its specs in
 * force allow (the largest of each term over them): an attempt in flight may need its whole
 * `write_timeout` to end, then the sink waits `retry_backoff`, then its next attempt may need
 * `write_timeout` again; plus the slack for the backlog itself.
 */
export function recoveryBound(specs: readonly RawSinkSpec[]): RecoveryBound {
  const dynamics = specs.map((spec) => {
    const result = validateDynamicParameters(
      spec.dynamic_parameters,
      SINK_CLASSES[spec.sink_class_name as SinkClassName],
    );
    if (!result.ok)
      throw new HarnessError(
        'CHAOS_SPEC_REFUSED',
        `the recovery bound needs a valid dynamic section: ${result.problems.map((problem) => problem.message).join('; ')}`,
      );
    return result.dynamic;
  });
  const writeTimeoutMs = Math.max(...dynamics.map((dynamic) => dynamic.write_timeout));
  const retryBackoffMs = Math.max(...dynamics.map((dynamic) => dynamic.retry_backoff));
  const slackMs = RECOVERY_SLACK_MS;
  return { ms: 2 * writeTimeoutMs + retryBackoffMs + slackMs, writeTimeoutMs, retryBackoffMs, slackMs };
}

export interface RecoveryDeps {
  /** Resolves once the cluster is healthy for the run's writes, rejects (naming what is not) past `timeoutMs`. */
  readonly awaitHealthy: (timeoutMs: number) => Promise<void>;
  readonly record: Pick<NemesisRecord, 'recovery'>;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

export interface Recovery {
  readonly trigger: RecoveryTrigger;
  readonly window?: number;
  readonly healedAt: number;
  readonly bound: RecoveryBound;
  /** Settles when the sink delivered what it held (or gave up: its own outcome, judged elsewhere). */
  readonly drained: Promise<unknown>;
}

/**
 * After a heal: the clock starts once the cluster is verified healthy (a cluster that does not get
 * there is an infrastructure error), then the sink has `bound.ms` to drain. Recorded in the
 * history either way; `stalled` when it did not (the cluster verified healthy again at that
 * moment, else the stall is the cluster's: an infrastructure error). The caller stops a stalled
 * sink; a drain that fails is the caller's to read.
 */
export async function watchRecovery(deps: RecoveryDeps, recovery: Recovery): Promise<'drained' | 'stalled'> {
  const { record, signal } = deps;
  recovery.drained.catch(() => undefined);
  await deps.awaitHealthy(HEALTHY_LIMIT_MS);
  const healthyAt = Date.now();
  const deadline = new AbortController();
  const outcome = await Promise.race([
    recovery.drained.then(
      () => 'drained' as const,
      () => 'drained' as const,
    ),
    delay(recovery.bound.ms, 'stalled' as const, { signal: AbortSignal.any([deadline.signal, signal]) }).catch(
      (error: unknown) => {
        if (signal.aborted) throw signal.reason;
        throw error;
      },
    ),
  ]).finally(() => deadline.abort());
  const endedAt = Date.now();
  if (outcome === 'stalled') await deps.awaitHealthy(STILL_HEALTHY_LIMIT_MS);
  record.recovery({
    trigger: recovery.trigger,
    ...(recovery.window === undefined ? {} : { window: recovery.window }),
    healedAt: recovery.healedAt,
    healthyAt,
    bound: recovery.bound,
    outcome,
    endedAt,
  });
  if (outcome === 'stalled')
    deps.log.warn(
      { trigger: recovery.trigger, window: recovery.window, boundMs: recovery.bound.ms },
      'the sink did not drain within its recovery bound; restarting it',
    );
  return outcome;
}
