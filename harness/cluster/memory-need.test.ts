import { describe, expect, it } from 'vitest';
import { availableMemoryMiB, MEMBER_PEAK_MIB, memoryNeedMiB, memoryShortfall } from './memory-need.ts';

describe('memoryShortfall', () => {
  it('counts every node, Keeper member and the proxy at its measured peak, with the runner beside them', () => {
    expect(memoryNeedMiB({ shards: 2, replicas: 2, keepers: 1 })).toBe(
      4 * (MEMBER_PEAK_MIB.node + MEMBER_PEAK_MIB.nodeData) + MEMBER_PEAK_MIB.keeper + MEMBER_PEAK_MIB.proxy + 1024,
    );
    expect(memoryNeedMiB({ shards: 3, replicas: 3, keepers: 3 })).toBeGreaterThan(
      memoryNeedMiB({ shards: 3, replicas: 3, keepers: 1 }),
    );
  });

  it('lets a shape through that fits, and names what a shape that does not fit needs and what there is', () => {
    expect(memoryShortfall({ shards: 2, replicas: 2, keepers: 1 }, 8192)).toBeUndefined();
    expect(memoryShortfall({ shards: 8, replicas: 4, keepers: 1 }, 4000)).toBe(
      'a 8x4 cluster (32 ClickHouse node(s), 1 Keeper member(s)) needs about 21792 MiB at its peak (640 MiB per node and its data, measured), and this machine has 4000 MiB available',
    );
  });

  it('reads a figure for this machine', () => {
    expect(availableMemoryMiB()).toBeGreaterThan(0);
  });
});
