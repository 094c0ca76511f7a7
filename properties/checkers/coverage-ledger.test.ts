import { describe, expect, it } from 'vitest';
import type { Coverage, Evidence } from './coverage-checker.ts';
import { CoverageLedger, NO_EVIDENCE } from './coverage-ledger.ts';
import { NO_SIGHTINGS } from './sometimes-events.ts';

const declared: Coverage = { faults: ['reset_peer'], unknownLanded: true, unknownAbsent: true, serverDedupOff: true };
const evidence = (over: Partial<Evidence>, seen: Partial<Evidence['sightings']> = {}): Evidence => ({
  ...NO_EVIDENCE,
  ...over,
  sightings: { ...NO_SIGHTINGS, ...seen },
});

describe('CoverageLedger', () => {
  it('is not complete before a first run, however little was declared', () => {
    const ledger = new CoverageLedger();
    expect(ledger.complete).toBe(false);
    expect(ledger.missing()).toEqual(['no run finished']);
  });

  it('accumulates evidence across runs until every declared event happened', () => {
    const ledger = new CoverageLedger();
    ledger.add(declared, evidence({ faultsFired: new Map([['reset_peer', 1]]) }, { unknownLanded: 2 }));
    expect(ledger.missing()).toEqual([
      'no unknown-outcome INSERT that never reached the server (unknown → absent)',
      "no run with the server's block dedup off (its duplicates could have been hidden)",
    ]);
    ledger.add(declared, evidence({}, { unknownAbsent: 1, serverDedupOff: 1 }));
    expect(ledger.complete).toBe(true);
    expect(ledger.runs).toBe(2);
    expect(ledger.evidence.faultsFired.get('reset_peer')).toBe(1);
  });

  it('owes a write under every declared spec boundary, from the evidence of any run', () => {
    const ledger = new CoverageLedger();
    const owed: Coverage = { faults: [], boundaries: ['host', 'max_insert_attempts = 1'] };
    ledger.add(owed, evidence({ boundaries: new Map([['host', 3]]) }));
    expect(ledger.missing()).toEqual(['the sink wrote nothing under a spec with max_insert_attempts = 1']);
    ledger.add(
      { faults: [], boundaries: ['hosts'] },
      evidence({ boundaries: new Map([['max_insert_attempts = 1', 1]]) }),
    );
    expect(ledger.missing()).toEqual(['the sink wrote nothing under a spec with hosts']);
    ledger.add({ faults: [] }, evidence({ boundaries: new Map([['hosts', 2]]) }));
    expect(ledger.complete).toBe(true);
    expect(ledger.evidence.boundaries.get('host')).toBe(3);
  });

  it('owes the rest of the new events: a delivery, an expired dedup window, a run with dedup kept', () => {
    const ledger = new CoverageLedger();
    const owed: Coverage = { faults: [], delivered: true, windowExceeded: true, serverDedupOn: true };
    ledger.add(owed, evidence({}));
    expect(ledger.missing()).toEqual([
      'the pipeline acknowledged no message',
      'no replay arrived after its token had left the dedup window',
      "no run with the server's block dedup kept",
    ]);
    ledger.add(owed, evidence({}, { delivered: 20, windowExceeded: 1, serverDedupOn: 1 }));
    expect(ledger.complete).toBe(true);
  });

  it('a fault a later run draws is owed too, with the reason it missed', () => {
    const ledger = new CoverageLedger();
    ledger.add({ faults: ['reset_peer'] }, evidence({ faultsFired: new Map([['reset_peer', 1]]) }));
    ledger.add(
      { faults: ['latency'] },
      evidence({
        faultsMissed: [
          {
            fault: 'latency',
            reason: "latency(the INSERT's link, 200ms±0): armed on the next INSERT: the writes ended without an INSERT",
          },
        ],
      }),
    );
    expect(ledger.missing()).toEqual([
      "fault latency never met an INSERT (latency(the INSERT's link, 200ms±0): armed on the next INSERT: the writes ended without an INSERT)",
    ]);
  });

  it('owes a batching class an epoch cut into several batches', () => {
    const ledger = new CoverageLedger();
    ledger.add({ faults: [], multiBatchEpoch: true }, evidence({}));
    expect(ledger.missing()).toEqual(['no epoch was cut into several batches']);
    ledger.add({ faults: [] }, evidence({}, { multiBatchEpoch: 2 }));
    expect(ledger.complete).toBe(true);
  });

  it('owes each topology change its own refusal', () => {
    const ledger = new CoverageLedger();
    ledger.add(
      { faults: [], refusedChanges: ['shard s2 added', 'shard s2 removed'] },
      evidence({ refusedChanges: new Map([['shard s2 added', 1]]) }),
    );
    expect(ledger.missing()).toEqual(["no refusal under 'shard s2 removed'"]);
  });
});
