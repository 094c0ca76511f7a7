import { describe, expect, it } from 'vitest';
import { missingAcknowledged } from './engine-run.ts';

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
