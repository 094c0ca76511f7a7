import { describe, expect, it } from 'vitest';
import { readAnswers } from './engine-topic.ts';

describe('readAnswers', () => {
  it('acknowledges each partition share its answer covers, at the offset it gave', () => {
    expect(
      readAnswers([1, 2, 3, 4], 2, [
        { partition: 0, errorCode: 0, baseOffset: '10' },
        { partition: 1, errorCode: 0, baseOffset: '7' },
      ]),
    ).toEqual({
      acknowledged: [2, 4, 1, 3],
      unknown: [],
      offsets: [
        { partition: 0, baseOffset: 10, ids: [2, 4] },
        { partition: 1, baseOffset: 7, ids: [1, 3] },
      ],
    });
  });

  it('leaves a share unknown when a resolved send has no answer for its partition', () => {
    const read = readAnswers([1, 2, 3, 4], 2, [{ partition: 1, errorCode: 0, baseOffset: '7' }]);
    expect(read.acknowledged).toEqual([1, 3]);
    expect(read.unknown).toEqual([2, 4]);
  });

  it('leaves a share unknown when its answer carries an error or no offset', () => {
    const read = readAnswers([1, 2, 3, 4], 2, [
      { partition: 0, errorCode: 6, baseOffset: '10' },
      { partition: 1, errorCode: 0 },
    ]);
    expect(read.acknowledged).toEqual([]);
    expect(read.unknown).toEqual([2, 4, 1, 3]);
  });
});
