import { randomBytes } from 'node:crypto';
import type { Brand } from '../../sinks/index.ts';
import { HarnessError } from './errors.ts';

/** The seed a chaos job generates every case from (`--seed`); with a path it names one case exactly. */
export type Seed = Brand<number, 'Seed'>;

/** A chaos job's id: its report directory's name (`YYYYMMDD-HHMMSS-xxxx`). */
export type RunId = Brand<string, 'RunId'>;

/** A seed from an integer; anything else is refused (fast-check takes 32-bit integers). */
export function seedOf(value: number, where = 'a seed'): Seed {
  if (!Number.isSafeInteger(value)) throw new HarnessError('SEED_INVALID', `${where} must be an integer, got ${value}`);
  return value as Seed;
}

/** A new run id: the time it was made (UTC, to the second) and 16 random bits. */
export function newRunId(now = new Date()): RunId {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}` as RunId;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** A run id as `newRunId` makes them (`YYYYMMDD-HHMMSS-xxxx`); anything else is refused. */
export function runIdOf(value: string, where = 'a run id'): RunId {
  if (!RUN_ID.test(value))
    throw new HarnessError('RUN_ID_INVALID', `${where} should look like 20261201-120000-ab12, got '${value}'`);
  return value as RunId;
}

/**
 * The seed fast-check draws one class x scenario pair's cases from: the job's seed mixed with the
 * pair's name (FNV-1a over both). Every pair of a job would otherwise draw from the same random
 * stream, so one coin flip decided the workload of every pair at once (measured: seed 361218543
 * gave every pair one partition of 2-message epochs). Replays give the job's seed and the pair,
 * so they derive the same one.
 */
export function pairSeed(seed: number, pair: string): number {
  let hash = 0x811c9dc5 ^ (seed | 0);
  for (const unit of `${seed}/${pair}`) hash = Math.imul(hash ^ (unit.codePointAt(0) ?? 0), 0x01000193);
  return hash | 0;
}
