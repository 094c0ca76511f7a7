import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EndpointRotation, startIndex } from './endpoint-rotation.ts';

const hosts = ['h1', 'h2', 'h3'];
const never = () => {
  throw new Error('ordered_round_robin must not draw a random number');
};

describe('EndpointRotation', () => {
  it('keeps spec order with ordered_round_robin and fails over round-robin', () => {
    const rotation = new EndpointRotation(hosts, 'ordered_round_robin', never);
    expect(rotation.order()).toEqual(['h1', 'h2', 'h3']);
    expect([rotation.current(), rotation.failover(), rotation.failover(), rotation.failover()]).toEqual([
      'h1',
      'h2',
      'h3',
      'h1',
    ]);
  });

  it('rotates the list to a random start once with random_start', () => {
    let draws = 0;
    const rotation = new EndpointRotation(hosts, 'random_start', () => {
      draws += 1;
      return 0.5;
    });
    expect(rotation.order()).toEqual(['h2', 'h3', 'h1']);
    rotation.failover();
    rotation.failover();
    expect(rotation.current()).toBe('h1');
    expect(draws).toBe(1);
  });

  it('picks every start position uniformly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (count, draw) => {
          const index = startIndex(count, 'random_start', () => draw);
          expect(index).toBe(Math.floor(draw * count));
        },
      ),
    );
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i += 1) counts[startIndex(3, 'random_start', () => (i + 0.5) / 3000)]! += 1;
    expect(counts).toEqual([1000, 1000, 1000]);
  });

  it('clamps a generator that returns 1', () => {
    expect(startIndex(3, 'random_start', () => 1)).toBe(2);
  });

  it('refuses an empty host list', () => {
    expect(() => new EndpointRotation([], 'ordered_round_robin', never)).toThrow(/at least one host/);
  });
});
