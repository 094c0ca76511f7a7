import { describe, expect, it } from 'vitest';
import { SINK_CLASS_NAMES } from '../../sinks/index.ts';
import {
  DEFAULT_SHAPE,
  describeShape,
  drawnShape,
  JOB_SHAPE_MAX_NODES,
  pairShape,
  parseShape,
  shapeArgument,
} from './cluster-shape.ts';
import { findScenarios } from './catalogue.ts';

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

  it("draws a job's shapes of at most JOB_SHAPE_MAX_NODES nodes, thin and wide ones among them", () => {
    const shapes = Array.from({ length: 200 }, (_, seed) => drawnShape(seed, JOB_SHAPE_MAX_NODES));
    expect(Math.max(...shapes.map((shape) => shape.shards * shape.replicas))).toBe(JOB_SHAPE_MAX_NODES);
    const kinds = new Set(shapes.map((shape) => `${shape.shards}x${shape.replicas}`));
    for (const kind of ['1x1', '1x3', '3x1', '2x2']) expect(kinds).toContain(kind);
  });
});

describe('pairShape', () => {
  const [quorum] = findScenarios(['quorum-sequential']);
  const catalogue = findScenarios(undefined, 'ci');
  const pairs = SINK_CLASS_NAMES.flatMap((sinkClass) =>
    catalogue.filter((scenario) => scenario.classes.includes(sinkClass)).map((scenario) => ({ sinkClass, scenario })),
  );

  it('puts every other pair of a job without --shape on the seed drawn shape, so each class meets both', () => {
    for (const seed of [1, 2, 17, 4242]) {
      const drawn = shapeArgument(drawnShape(seed, JOB_SHAPE_MAX_NODES));
      const shapes = pairs.map(({ sinkClass, scenario }) =>
        shapeArgument(pairShape(undefined, seed, sinkClass, scenario)),
      );
      expect(shapes.filter((shape) => shape === drawn).length, `seed ${seed}`).toBeGreaterThan(pairs.length / 3);
      for (const sinkClass of SINK_CLASS_NAMES) {
        const own = shapes.filter((_, i) => pairs[i]?.sinkClass === sinkClass);
        expect(new Set(own), `${sinkClass}, seed ${seed}`).toEqual(new Set([shapeArgument(DEFAULT_SHAPE), drawn]));
      }
    }
  });

  it('depends on the pair and the seed only, so a replay of one pair lands on the shape it ran on', () => {
    const { sinkClass, scenario } = pairs[5] ?? { sinkClass: 'ClickHouseBatchingSink', scenario: catalogue[0] };
    if (scenario === undefined) throw new Error('empty catalogue');
    expect(pairShape(undefined, 9, sinkClass, scenario)).toEqual(pairShape(undefined, 9, sinkClass, scenario));
    expect(pairShape(undefined, 9, sinkClass, scenario)).not.toEqual(pairShape(undefined, 10, sinkClass, scenario));
  });

  it('keeps a pair the drawn shape cannot hold on the default, and gives every pair the shape --shape names', () => {
    if (quorum === undefined) throw new Error('no quorum scenario');
    const thinSeeds = Array.from({ length: 200 }, (_, seed) => seed).filter(
      (seed) => drawnShape(seed, JOB_SHAPE_MAX_NODES).replicas < 2,
    );
    expect(thinSeeds.length).toBeGreaterThan(0);
    for (const seed of thinSeeds)
      for (const sinkClass of quorum.classes) expect(pairShape(undefined, seed, sinkClass, quorum)).toBe(DEFAULT_SHAPE);
    const given = parseShape('3x1', 'embedded');
    expect(pairShape(given, 3, 'AtMostOnceClickHouseSink', quorum)).toBe(given);
  });
});

describe('describeShape', () => {
  it('names the shards, the default ones too', () => {
    expect(describeShape(DEFAULT_SHAPE)).toBe('2x2 (s1, s2)');
    expect(describeShape(parseShape('3x1:a,north-eu,b_2', 'embedded'))).toBe('3x1 (a, north-eu, b_2)');
  });
});
