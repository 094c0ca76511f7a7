import { describe, expect, it } from 'vitest';
import { chunksOfParameterSize, PARAMETER_BYTES } from './parameter-chunks.ts';

describe('chunksOfParameterSize', () => {
  it('keeps every value, in order, each group within the bytes a parameter may carry', () => {
    // 2,400 INSERT query ids of an at-most-once run in queue mode: about 170 KiB in one parameter.
    const ids = Array.from({ length: 2_400 }, (_, i) => `chaos_sink.p${i % 4}.b${i}.u.a1.${'0'.repeat(36)}`);
    const chunks = chunksOfParameterSize(ids);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toEqual(ids);
    for (const chunk of chunks) expect(`['${chunk.join("','")}']`.length).toBeLessThanOrEqual(PARAMETER_BYTES);
  });

  it('gives no group for no values, and a value longer than the limit a group of its own', () => {
    expect(chunksOfParameterSize([])).toEqual([]);
    expect(chunksOfParameterSize(['a', 'x'.repeat(20), 'b'], 10)).toEqual([['a'], ['x'.repeat(20)], ['b']]);
  });
});
