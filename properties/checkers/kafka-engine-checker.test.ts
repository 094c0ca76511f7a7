import { describe, expect, it } from 'vitest';
import { checkEngineRun, type EngineObservation, type StoredRow, type TopicMessage } from './kafka-engine-checker.ts';

/** A source of its own: the checker is given the rows the source produced, by id. */
const expectedRow = (id: number) => ({ id: String(id), text: `m${id}`, wide: String(id * 7) });

const topic: TopicMessage[] = [
  { partition: 0, offset: 0, id: 1, broken: false },
  { partition: 0, offset: 1, id: 2, broken: false },
  { partition: 0, offset: 2, id: 3, broken: true },
  { partition: 1, offset: 0, id: 4, broken: false },
  { partition: 1, offset: 1, id: 5, broken: false },
];
const row = (id: number, partition: number, offset: number): StoredRow => ({
  values: expectedRow(id),
  partition,
  offset,
});
const everyRow = [row(1, 0, 0), row(2, 0, 1), row(4, 1, 0), row(5, 1, 1)];
const observed = (changes: Partial<EngineObservation> = {}): EngineObservation => ({
  topic,
  acknowledged: [1, 2, 3, 4, 5],
  stored: everyRow,
  replicaCounts: [
    { shard: 's1', replica: 's1r1', rows: 4 },
    { shard: 's1', replica: 's1r2', rows: 4 },
  ],
  committed: new Map([
    [0, 3],
    [1, 2],
  ]),
  drained: true,
  ...changes,
});
const categories = (observation: EngineObservation) =>
  checkEngineRun(observation, expectedRow).anomalies.map((found) => found.category);

describe('checkEngineRun: at-least-once against the topic', () => {
  it('passes every message stored once, a broken one dropped as its settings allow', () => {
    const check = checkEngineRun(observed(), expectedRow);
    expect(check.anomalies).toEqual([]);
    expect(check.brokenDropped).toBe(1);
    expect(check.stored).toBe(4);
    expect(check.counts.recovered).toBe(0);
    // A message whose send was never acknowledged, found stored: recovered, in Jepsen's sense.
    expect(checkEngineRun(observed({ acknowledged: [1, 2, 3, 4] }), expectedRow).counts.recovered).toBe(1);
  });

  it('under the dead letter queue, owes the queue every broken message: one it lacks is lost, none is dropped', () => {
    const queued = checkEngineRun(observed({ deadLettered: [{ partition: 0, offset: 2 }] }), expectedRow);
    expect(queued.anomalies).toEqual([]);
    expect(queued.brokenDropped).toBe(0);
    const missing = checkEngineRun(observed({ deadLettered: [{ partition: 1, offset: 0 }] }), expectedRow);
    expect(missing.anomalies).toEqual([
      { category: 'lost', count: 1, examples: ['broken message 3 (0/2), not in the dead letter queue'] },
    ]);
  });

  it('judges messages by topic position: an id the producer put in twice is two messages, each owed once', () => {
    // The producer's retry wrote id 5 again at 1/2: storing both positions is no re-delivery.
    const twice = [...topic, { partition: 1, offset: 2, id: 5, broken: false }];
    const both = checkEngineRun(observed({ topic: twice, stored: [...everyRow, row(5, 1, 2)] }), expectedRow);
    expect(both.anomalies).toEqual([]);
    expect(both.counts.duplicated).toBe(0);
    expect(both.stored).toBe(5);
    // One position stored twice and the other skipped is a re-delivery and a loss, not a wash.
    const skipped = checkEngineRun(
      observed({ topic: twice, stored: [...everyRow, row(5, 1, 1)], committed: new Map([[1, 3]]) }),
      expectedRow,
    );
    expect(skipped.counts.duplicated).toBe(1);
    expect(skipped.anomalies).toEqual([{ category: 'lost', count: 1, examples: ['5 (1/2)'] }]);
  });

  it('allows a message consumed twice (a commit lost), counting it', () => {
    const check = checkEngineRun(observed({ stored: [...everyRow, row(4, 1, 0)] }), expectedRow);
    expect(check.anomalies).toEqual([]);
    expect(check.counts.duplicated).toBe(1);
  });

  it('calls a message lost when a later offset of its partition was written', () => {
    const check = checkEngineRun(
      observed({ stored: everyRow.filter((stored) => stored.values.id !== '1') }),
      expectedRow,
    );
    expect(check.anomalies).toEqual([{ category: 'lost', count: 1, examples: ['1 (0/0)'] }]);
  });

  it('calls the last message of a partition lost when the group committed past it', () => {
    const stored = everyRow.filter((stored) => stored.values.id !== '5');
    expect(categories(observed({ stored, drained: false }))).toEqual(['lost']);
    // Not committed past, the drain ran out: the engine stopped, and says so.
    const uncommitted = new Map([
      [0, 3],
      [1, 1],
    ]);
    expect(categories(observed({ stored, committed: uncommitted, drained: false }))).toEqual(['stalled']);
    // Drained means the reads saw nothing more coming: absent then is lost.
    expect(categories(observed({ stored, committed: uncommitted, drained: true }))).toEqual(['lost']);
  });

  it('flags a value that is not the one produced, naming the column', () => {
    const changed: StoredRow = { ...row(2, 0, 1), values: { ...expectedRow(2), wide: '0' } };
    const check = checkEngineRun(
      observed({ stored: [row(1, 0, 0), changed, row(4, 1, 0), row(5, 1, 1)] }),
      expectedRow,
    );
    expect(check.anomalies[0]?.category).toBe('unexpected');
    expect(check.anomalies[0]?.examples[0]).toContain('wide');
  });

  it('flags a row written from a broken message, or from no message', () => {
    const fromBroken: StoredRow = { values: { ...expectedRow(3) }, partition: 0, offset: 2 };
    expect(categories(observed({ stored: [...everyRow, fromBroken] }))).toEqual(['unexpected']);
    expect(categories(observed({ stored: [...everyRow, row(9, 1, 7)] }))).toEqual(['unexpected']);
  });

  it('counts a loss where the configuration owes nothing, but still calls a stop and a wrong row', () => {
    const stored = everyRow.filter((stored) => stored.values.id !== '1');
    const check = checkEngineRun(observed({ stored }), expectedRow, 'none');
    expect(check.anomalies).toEqual([]);
    expect(check.counts.lost).toBe(1);
    const uncommitted = new Map([
      [0, 3],
      [1, 1],
    ]);
    const stopped = everyRow.filter((stored) => stored.values.id !== '5');
    expect(categories(observed({ stored: stopped, committed: uncommitted, drained: false }))).toEqual(['stalled']);
    expect(
      checkEngineRun(observed({ stored: [...everyRow, row(9, 1, 7)] }), expectedRow, 'none').anomalies.map(
        (found) => found.category,
      ),
    ).toEqual(['unexpected']);
  });

  it('holds the broker to what it acknowledged', () => {
    const check = checkEngineRun(observed({ acknowledged: [1, 2, 3, 4, 5, 6] }), expectedRow);
    expect(check.anomalies).toEqual([{ category: 'lost', count: 1, examples: ['6 (acknowledged, not in the topic)'] }]);
  });

  it('flags replicas of a shard that disagree', () => {
    const replicaCounts = [
      { shard: 's1', replica: 's1r1', rows: 4 },
      { shard: 's1', replica: 's1r2', rows: 3 },
    ];
    expect(categories(observed({ replicaCounts }))).toEqual(['diverged:s1r2']);
  });

  it('flags replicas that hold as many rows but not the same messages (each kept what its own consumer wrote)', () => {
    const replicaCounts = (second: string) => [
      { shard: 's1', replica: 's1r1', rows: 4, contents: '1234' },
      { shard: 's1', replica: 's1r2', rows: 4, contents: second },
    ];
    expect(categories(observed({ replicaCounts: replicaCounts('5678') }))).toEqual(['diverged:s1r2']);
    expect(categories(observed({ replicaCounts: replicaCounts('1234') }))).toEqual([]);
  });
});
