import { describe, expect, it } from 'vitest';
import { faultFired, missingAcknowledged, refusedSince } from './engine-run.ts';

const topic = [
  { partition: 0, offset: 0, id: 4, broken: false },
  { partition: 0, offset: 1, id: 8, broken: false },
  { partition: 1, offset: 0, id: 1, broken: false },
];

describe('missingAcknowledged', () => {
  it('says nothing when every acknowledged message is in the topic', () => {
    expect(missingAcknowledged(topic, [{ partition: 0, baseOffset: 0, ids: [4, 8] }])).toEqual([]);
  });

  it('tells a log that lost acknowledged records from an acknowledgement that was not for them', () => {
    expect(missingAcknowledged(topic, [{ partition: 0, baseOffset: 2, ids: [12, 16] }])).toEqual([
      '2 acknowledged message(s) missing (12, 16), acknowledged at partition 0 offset 2; the partition ends at offset 2: the log lost records it had acknowledged',
    ]);
    expect(missingAcknowledged(topic, [{ partition: 1, baseOffset: 0, ids: [5] }])).toEqual([
      '1 acknowledged message(s) missing (5), acknowledged at partition 1 offset 0; offset 0 holds id 1: the acknowledgement was not for these records',
    ]);
  });
});

describe('whether a Keeper cut counts', () => {
  const database = 'chaos_run_0';
  const cut = { fault: { kind: 'keeper-link' as const }, faultAfterChunk: 2, chunks: 5 };
  const window = {
    type: 'keeper_link_cut' as const,
    description: 'cut',
    targets: ['s1r1'],
    appliedAt: 0,
    verified: true,
  };
  const target = { consumer: 's1r1', partitions: [0, 1] };
  const path = `Table is in readonly mode: replica_path=/clickhouse/tables/s1/${database}/events_rep/replicas/s1r1`;

  it("counts only when the view's INSERT into the target was refused as read-only while it held", () => {
    const notes: string[] = [];
    expect(faultFired([{ window }], target, cut, notes, { viewRefused: 3 })).toBe(true);
    expect(faultFired([{ window }], target, cut, notes, { viewRefused: 0 })).toBe(false);
    expect(notes.at(-1)).toMatch(/never met the cut/);
  });

  it("takes a refusal as the view's only where the last one names the run's target", () => {
    expect(refusedSince({ count: 2, last: '' }, { count: 5, last: path }, database)).toBe(3);
    expect(refusedSince({ count: 2, last: '' }, { count: 2, last: path }, database)).toBe(0);
    expect(
      refusedSince({ count: 2, last: '' }, { count: 5, last: path.replace(database, 'someone_elses') }, database),
    ).toBe(0);
  });
});

describe('whether a replica kill counts', () => {
  const window = {
    type: 'replica_kill' as const,
    description: 'kill',
    targets: ['s1r1'],
    appliedAt: 0,
    verified: true,
  };
  const target = { consumer: 's1r1', partitions: [0] };
  const aimed = {
    fault: { kind: 'replica-kill' as const, between: 'write-and-commit' as const },
    faultAfterChunk: 1,
    chunks: 4,
  };
  const plain = { fault: { kind: 'replica-kill' as const }, faultAfterChunk: 1, chunks: 4 };

  it('counts an aimed kill that missed the window as a kill mid-stream, unless the profile requires the window', () => {
    const notes: string[] = [];
    expect(faultFired([{ window }], target, aimed, notes, { commitWindow: false })).toBe(true);
    expect(faultFired([{ window }], target, aimed, notes, { commitWindow: false, requireCommitWindow: true })).toBe(
      false,
    );
    expect(notes.at(-1)).toMatch(/missed the window/);
  });

  it('counts only a kill in the window where the profile requires that case, and any kill elsewhere', () => {
    expect(faultFired([{ window }], target, plain, [], {})).toBe(true);
    expect(faultFired([{ window }], target, plain, [], { requireCommitWindow: true })).toBe(false);
    expect(faultFired([{ window }], target, aimed, [], { commitWindow: true, requireCommitWindow: true })).toBe(true);
  });
});
