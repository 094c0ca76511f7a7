import { describe, expect, it } from 'vitest';
import { missingCoverage } from './coverage-checker.ts';
import { NO_EVIDENCE } from './coverage-ledger.ts';
import type { HistoryFacts } from './from-history.ts';
import type { AttemptRecord } from './observations.ts';
import { SOMETIMES_EVENT_NAMES, SOMETIMES_EVENTS, type RunSightings } from './sometimes-events.ts';

const attempt = (over: Partial<AttemptRecord>): AttemptRecord => ({
  writer: 'w1',
  partition: 0,
  batch: 1,
  shard: null,
  endpoint: '127.0.0.1:8123',
  dedupToken: '1-0-1',
  queryId: 'q',
  messageIds: [],
  outcome: 'ok',
  sent: true,
  invokedAt: 0,
  startedAt: 0,
  endedAt: 0,
  ...over,
});

const sightings = (attempts: AttemptRecord[]) =>
  SOMETIMES_EVENTS.unknownRetriedSameToken.count({ facts: { attempts } as unknown as HistoryFacts } as RunSightings);

describe('the "sometimes" events', () => {
  it('each says, in its own line, that it never happened when declared and unseen', () => {
    for (const name of SOMETIMES_EVENT_NAMES)
      expect(missingCoverage({ faults: [], [name]: true }, NO_EVIDENCE)).toEqual([SOMETIMES_EVENTS[name].missing]);
    expect(new Set(SOMETIMES_EVENT_NAMES.map((name) => SOMETIMES_EVENTS[name].missing)).size).toBe(
      SOMETIMES_EVENT_NAMES.length,
    );
  });

  it('counts an unknown-outcome INSERT retried under its own token, and nothing else', () => {
    const unknown = attempt({ outcome: 'unknown', invokedAt: 10 });
    expect(sightings([unknown, attempt({ invokedAt: 20 })])).toBe(1);
    expect(sightings([unknown, attempt({ invokedAt: 20, dedupToken: '1-0-9' })])).toBe(0);
    expect(sightings([unknown, attempt({ invokedAt: 20, batch: 2 })])).toBe(0);
    expect(sightings([attempt({ invokedAt: 5 }), unknown])).toBe(0);
    expect(sightings([attempt({ outcome: 'failed', invokedAt: 10 }), attempt({ invokedAt: 20 })])).toBe(0);
  });

  it('counts a fault met on a later attempt of an INSERT a fault already met, and nothing else', () => {
    const met = (attempts: AttemptRecord[], faultMet: readonly string[]) =>
      SOMETIMES_EVENTS.retryMetFault.count({
        facts: { attempts } as unknown as HistoryFacts,
        faultMet: new Set(faultMet),
      } as unknown as RunSightings);
    const first = attempt({ queryId: 'a1', outcome: 'unknown', invokedAt: 10 });
    const retry = attempt({ queryId: 'a2', outcome: 'unknown', invokedAt: 20 });
    expect(met([first, retry], ['a1', 'a2'])).toBe(1);
    // A replay by the next worker after a crash counts too: same batch, a later attempt.
    expect(met([first, { ...retry, writer: 'w2' }], ['a1', 'a2'])).toBe(1);
    // The retry itself must have met its fault, and so must the attempt before it.
    expect(met([first, retry], ['a1'])).toBe(0);
    expect(met([first, retry], ['a2'])).toBe(0);
    // Another batch, shard or partition is another INSERT.
    expect(met([first, { ...retry, batch: 2 }], ['a1', 'a2'])).toBe(0);
    expect(met([first, { ...retry, shard: 's2' }], ['a1', 'a2'])).toBe(0);
    expect(met([first, { ...retry, partition: 1 }], ['a1', 'a2'])).toBe(0);
  });
});
