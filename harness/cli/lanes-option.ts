import { HarnessError } from '../base/index.ts';

const MAX_LANES = 4;

/**
 * The clusters a command runs side by side unless `--lanes` says otherwise: one per core. With
 * the members' data in memory (`harness/cluster/ram-dir.ts`) one lane of the `ci` job (seed
 * 424242, 2 cores) used 0.89 of a core and took 451 s; two lanes took 330 s, each pair 1.31 times
 * as long (565 s of pairs against 432 s), using 1.39 cores. With the data on disk the job was
 * bound by the cores (two lanes: each pair 1.57 times as long), which is why 2 cores ran one lane then.
 */
const defaultLanes = (cores: number): number => Math.max(1, Math.min(MAX_LANES, cores));

/** `--lanes N` of a command that starts its own clusters: a whole number from 1 to 4, one per core when absent. */
export function lanesOption(value: string | undefined, cores: number): number {
  if (value === undefined) return defaultLanes(cores);
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_LANES)
    throw new HarnessError('CLI_USAGE', `--lanes takes a whole number from 1 to ${MAX_LANES}, got '${value}'`);
  return Number(value);
}
