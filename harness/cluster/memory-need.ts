import { readFileSync } from 'node:fs';
import { freemem } from 'node:os';
import type { TopologySpec } from './topology.ts';

/**
 * Peak resident memory per member, rounded up from what chaos jobs measured on the embedded
 * backend (26.7, 2 cores): ClickHouse nodes 365-497 MiB under the `ci` traffic, the Keeper member
 * 135 MiB, the fault proxy 100 MiB; a Kafka broker is capped at a 384 MiB heap. The runner and its sink workers take the rest of `RUNNER_MIB`.
 * A node's data directory lives in memory (`ram-dir.ts`): a 2x2 cluster's data peaked at 283 MB
 * in a `ci` job (seed 424242), `nodeData` per node with room to spare.
 */
export const MEMBER_PEAK_MIB = { node: 512, nodeData: 128, keeper: 160, proxy: 128, broker: 512 } as const;
const RUNNER_MIB = 1024;

/** The memory a cluster of this shape needs at its peak, with the runner beside it. */
export function memoryNeedMiB(topology: Pick<TopologySpec, 'shards' | 'replicas' | 'keepers' | 'kafka'>): number {
  return (
    topology.shards * topology.replicas * (MEMBER_PEAK_MIB.node + MEMBER_PEAK_MIB.nodeData) +
    topology.keepers * MEMBER_PEAK_MIB.keeper +
    (topology.kafka ?? 0) * MEMBER_PEAK_MIB.broker +
    MEMBER_PEAK_MIB.proxy +
    RUNNER_MIB
  );
}

const readNumber = (file: string): number | undefined => {
  try {
    const value = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** The room left under a container's memory limit (cgroup v2, then v1), in bytes; undefined without one. */
function cgroupRoomBytes(): number | undefined {
  for (const [limitFile, usageFile] of [
    ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory.current'],
    ['/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/memory/memory.usage_in_bytes'],
  ] as const) {
    const limit = readNumber(limitFile);
    const usage = readNumber(usageFile);
    // `max` (v2) reads as NaN; v1 says "no limit" with a number near 2^63.
    if (limit !== undefined && usage !== undefined && limit < 2 ** 60) return Math.max(0, limit - usage);
  }
  return undefined;
}

/**
 * What new processes could be given without swapping: the kernel's `MemAvailable`, or less when a
 * container's cgroup limit leaves less (inside a container `/proc/meminfo` shows the host's).
 */
export function availableMemoryMiB(): number {
  let bytes = freemem();
  try {
    const match = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match !== null) bytes = Number(match[1]) * 1024;
  } catch {
    // Not Linux: the platform's own figure.
  }
  return Math.floor(Math.min(bytes, cgroupRoomBytes() ?? Number.POSITIVE_INFINITY) / (1024 * 1024));
}

/**
 * Why this machine cannot hold a cluster of this shape (one line), or undefined when it can:
 * started anyway, its members would be killed by the OOM killer mid-run and read as faults
 * nobody injected.
 */
export function memoryShortfall(
  topology: Pick<TopologySpec, 'shards' | 'replicas' | 'keepers' | 'kafka'>,
  availableMiB: number = availableMemoryMiB(),
): string | undefined {
  const need = memoryNeedMiB(topology);
  if (need <= availableMiB) return undefined;
  const nodes = topology.shards * topology.replicas;
  return `a ${topology.shards}x${topology.replicas} cluster (${nodes} ClickHouse node(s), ${topology.keepers} Keeper member(s)${(topology.kafka ?? 0) > 0 ? `, ${topology.kafka} Kafka broker(s)` : ''}) needs about ${need} MiB at its peak (${MEMBER_PEAK_MIB.node + MEMBER_PEAK_MIB.nodeData} MiB per node and its data, measured), and this machine has ${availableMiB} MiB available`;
}
