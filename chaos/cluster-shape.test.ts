import { describe, expect, it } from 'vitest';
import { drawnShape, parseShape, shapeArgument } from './cluster-shape.ts';

describe('--shape', () => {
  it('reads SHARDSxREPLICAS, with shard names optional, and gives it back for a replay line', () => {
    expect(parseShape('3x1', 'embedded')).toEqual({ shards: 3, replicas: 1 });
    const named = parseShape('2x2:a,north_eu-2', 'embedded');
    expect(named).toEqual({ shards: 2, replicas: 2, shardNames: ['a', 'north_eu-2'] });
    expect(shapeArgument(named)).toBe(' --shape 2x2:a,north_eu-2');
    expect(shapeArgument(undefined)).toBe('');
  });

  it.each([
    ['3', 'embedded', /--shape takes SHARDSxREPLICAS/],
    ['0x2', 'embedded', /--shards must be a whole number from 1 to 8/],
    ['2x2:a', 'embedded', /1 name\(s\) for 2 shard\(s\)/],
    ['2x1:a,b c', 'embedded', /shard name 'b c'/],
    ['2x2', 'external', /an attached one has the shape its file gives/],
  ])('refuses %s on %s before anything starts', (value, backend, message) => {
    expect(() => parseShape(value, backend)).toThrow(message);
  });
});

describe('drawnShape', () => {
  it('draws valid shapes of 1-3 shards x 1-3 replicas with names of several lengths, the same for a seed', () => {
    const shapes = Array.from({ length: 200 }, (_, seed) => drawnShape(seed));
    expect(drawnShape(17)).toEqual(drawnShape(17));
    expect(new Set(shapes.map((shape) => shape.shards))).toEqual(new Set([1, 2, 3]));
    expect(new Set(shapes.map((shape) => shape.replicas))).toEqual(new Set([1, 2, 3]));
    const lengths = new Set(shapes.flatMap((shape) => shape.shardNames?.map((name) => name.length) ?? []));
    expect(lengths.size).toBeGreaterThan(10);
    for (const shape of shapes)
      expect(parseShape(shapeArgument(shape).replace(' --shape ', ''), 'embedded')).toEqual(shape);
  });
});
