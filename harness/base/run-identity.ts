import type { Brand } from '../../sinks/domain/brand.ts';
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

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** A run id as `newRunId` makes them (`YYYYMMDD-HHMMSS-xxxx`); anything else is refused. */
export function runIdOf(value: string, where = 'a run id'): RunId {
  if (!RUN_ID.test(value))
    throw new HarnessError('RUN_ID_INVALID', `${where} should look like 20261201-120000-ab12, got '${value}'`);
  return value as RunId;
}
