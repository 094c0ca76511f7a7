import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { RecoveryEvent } from '../../harness/flow/history/index.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import { RECOVERY_SLACK_MS, recoveryBound, watchRecovery } from './recovery-watch.ts';

const spec = (dynamic: Record<string, unknown>): RawSinkSpec => ({
  sink_class_name: 'ClickHouseBatchingSink',
  name: 'events',
  parameters: {},
  dynamic_parameters: dynamic,
});

function watch(
  drained: Promise<unknown>,
  healthy: (timeoutMs: number) => Promise<void> = async () => undefined,
  progress?: () => Promise<unknown>,
) {
  const recorded: Omit<RecoveryEvent, 'type'>[] = [];
  const checks: number[] = [];
  const deps = {
    awaitHealthy: async (timeoutMs: number) => {
      checks.push(timeoutMs);
      await healthy(timeoutMs);
    },
    record: { recovery: (event: Omit<RecoveryEvent, 'type'>) => recorded.push(event) },
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  };
  const bound = { ms: 80, writeTimeoutMs: 20, retryBackoffMs: 10, slackMs: 30 };
  const outcome = watchRecovery(deps, {
    trigger: 'episode',
    window: 3,
    healedAt: Date.now(),
    bound,
    drained,
    ...(progress === undefined ? {} : { progress }),
  });
  return { outcome, recorded, checks };
}

describe('recoveryBound', () => {
  it("is 2 × write_timeout + retry_backoff + slack, each the largest of the specs in force (the spec's defaults where absent)", () => {
    expect(recoveryBound([spec({ write_timeout: 3000, retry_backoff: 150 }), spec({ write_timeout: 6000 })])).toEqual({
      ms: 2 * 6000 + 1000 + RECOVERY_SLACK_MS,
      writeTimeoutMs: 6000,
      retryBackoffMs: 1000,
      slackMs: RECOVERY_SLACK_MS,
    });
  });
});

describe('watchRecovery', () => {
  it('starts the clock once the cluster is healthy and records a drain within the bound', async () => {
    const { outcome, recorded, checks } = watch(new Promise((resolve) => setTimeout(resolve, 10)));
    expect(await outcome).toBe('drained');
    expect(checks).toHaveLength(1);
    const [event] = recorded;
    expect(event).toMatchObject({ trigger: 'episode', window: 3, outcome: 'drained' });
    expect(event!.healthyAt).toBeGreaterThanOrEqual(event!.healedAt);
    expect(event!.endedAt - event!.healthyAt).toBeLessThan(80);
  });

  it('records a sink that did not drain within the bound as stalled, once the cluster is checked healthy again', async () => {
    const { outcome, recorded, checks } = watch(new Promise(() => undefined));
    expect(await outcome).toBe('stalled');
    expect(checks).toHaveLength(2);
    expect(recorded).toMatchObject([{ outcome: 'stalled' }]);
    expect(recorded[0]!.endedAt - recorded[0]!.healthyAt).toBeGreaterThanOrEqual(79);
  });

  it('a long drain that keeps making progress is no stall: the bound runs from the last progress seen', async () => {
    const started = Date.now();
    const moving = async () => Math.floor((Date.now() - started) / 20);
    const { outcome, recorded } = watch(new Promise((resolve) => setTimeout(resolve, 300)), undefined, moving);
    expect(await outcome).toBe('drained');
    expect(recorded[0]!.endedAt - recorded[0]!.healthyAt).toBeGreaterThanOrEqual(290);
  });

  it('progress that stops is a stall once the bound passed since the last change', async () => {
    const started = Date.now();
    const untilStopped = async () => Math.min(Math.floor((Date.now() - started) / 20), 5);
    const { outcome, recorded } = watch(new Promise(() => undefined), undefined, untilStopped);
    expect(await outcome).toBe('stalled');
    const [event] = recorded;
    expect(event!.progressAt! - event!.healthyAt).toBeGreaterThanOrEqual(80);
    expect(event!.endedAt - event!.progressAt!).toBeGreaterThanOrEqual(79);
  });

  it('never calls it a stall when the cluster is not healthy at that moment: the harness fails, nothing is recorded', async () => {
    const notAtStall = (timeoutMs: number) =>
      timeoutMs < 10_000 ? Promise.reject(new Error('replica s1r1 read-only')) : Promise.resolve();
    const { outcome, recorded } = watch(new Promise(() => undefined), notAtStall);
    await expect(outcome).rejects.toThrow('replica s1r1 read-only');
    expect(recorded).toEqual([]);
  });
});
