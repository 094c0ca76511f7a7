import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { HarnessError } from '../../harness/base/index.ts';
import type { RecoveryBound, RecoveryTrigger } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { SINK_CLASSES, type SinkClassName, validateDynamicParameters } from '../../sinks/index.ts';
import type { NemesisRecord } from './nemesis-record.ts';

/**
 * A pause in progress beyond the spec's own waits. The bound runs from the last progress, so a
 * backlog needs none of it; measured, the real sinks' longest pause once the cluster was healthy
 * again was 1.2 s over 1,687 recoveries (ten `ci` seeds, 2026-12-06). Ten seconds let a sink whose
 * retries came 20 s late pass under a bound of 22 s; five is four times the longest pause seen.
 */
export const RECOVERY_SLACK_MS = 5_000;
/** How long the cluster may take to be healthy again after a heal; past it the run is an infrastructure error. */
const HEALTHY_LIMIT_MS = 90_000;
/** At a stall the cluster must still be healthy at once, or the stall is the cluster's. */
const STILL_HEALTHY_LIMIT_MS = 5_000;
/** How often the sink's progress is read while it drains (at least four times per bound). */
const PROGRESS_POLL_MS = 1_000;

/**
 * How long a sink may go without progress once the cluster is healthy again, from what its specs
 * in force allow (the largest of each term over them): an attempt in flight may need its whole
 * `write_timeout` to end, then the sink waits `retry_backoff`, then its next attempt may need
 * `write_timeout` again; plus slack. The bound runs from the last progress seen, not from the
 * heal, so it holds for any backlog.
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
  /**
   * A reading of the sink's progress (its partitions' progress and backlog): any change between
   * two readings is progress. Without it, only draining counts.
   */
  readonly progress?: () => Promise<unknown>;
}

/** A progress reading as a comparable value; a reading that failed is no progress. */
async function readProgress(progress: Recovery['progress']): Promise<string> {
  if (progress === undefined) return '';
  try {
    return JSON.stringify(await progress());
  } catch {
    return 'unreadable';
  }
}

/**
 * After a heal: the clock starts once the cluster is verified healthy (a cluster that does not get
 * there is an infrastructure error), then the sink may go `bound.ms` without progress before it
 * drained; every change of its progress reading restarts the clock. Recorded in the history
 * either way; `stalled` when the bound ran out (the cluster verified healthy again at that
 * moment, else the stall is the cluster's: an infrastructure error). The caller stops a stalled
 * sink; a drain that fails is the caller's to read.
 */
export async function watchRecovery(deps: RecoveryDeps, recovery: Recovery): Promise<'drained' | 'stalled'> {
  const { record, signal } = deps;
  let drained = false;
  const settled = recovery.drained.then(
    () => (drained = true),
    () => (drained = true),
  );
  await deps.awaitHealthy(HEALTHY_LIMIT_MS);
  const healthyAt = Date.now();
  let progressAt = healthyAt;
  let reading = await readProgress(recovery.progress);
  while (!drained) {
    const left = progressAt + recovery.bound.ms - Date.now();
    if (left <= 0) break;
    const tick = new AbortController();
    await Promise.race([
      settled,
      delay(Math.min(left, PROGRESS_POLL_MS, recovery.bound.ms / 4), undefined, {
        signal: AbortSignal.any([tick.signal, signal]),
      }).catch((error: unknown) => {
        if (signal.aborted) throw signal.reason;
        throw error;
      }),
    ]).finally(() => tick.abort());
    const next = await readProgress(recovery.progress);
    if (next !== reading) {
      reading = next;
      progressAt = Date.now();
    }
  }
  const outcome = drained ? ('drained' as const) : ('stalled' as const);
  const endedAt = Date.now();
  if (outcome === 'stalled') await deps.awaitHealthy(STILL_HEALTHY_LIMIT_MS);
  record.recovery({
    trigger: recovery.trigger,
    ...(recovery.window === undefined ? {} : { window: recovery.window }),
    healedAt: recovery.healedAt,
    healthyAt,
    bound: recovery.bound,
    outcome,
    ...(recovery.progress === undefined ? {} : { progressAt }),
    endedAt,
  });
  if (outcome === 'stalled')
    deps.log.warn(
      { trigger: recovery.trigger, window: recovery.window, boundMs: recovery.bound.ms },
      'the sink made no progress within its recovery bound; restarting it',
    );
  return outcome;
}
