import { randomBytes } from 'node:crypto';
import type { JudgedClassName } from '../../properties/base/index.ts';

/**
 * A run's own database name: the job's tag (`chaos_<run id>` from the chaos job), 48 random bits,
 * then the class, scenario and run index a reader can place. Two runs never share a name, so a
 * run can neither adopt another's database nor drop it.
 */
export function runDatabaseName(prefix: string, sinkClass: JudgedClassName, scenario: string, index: number): string {
  return `${prefix}_${randomBytes(6).toString('hex')}_${sinkClass.toLowerCase()}_${scenario.replace(/-/g, '_')}_${index}`;
}

/** ClickHouse's DATABASE_ALREADY_EXISTS (82): the CREATE did nothing, and the database is someone else's. */
export const databaseTaken = (error: unknown): boolean => String((error as { code?: unknown }).code) === '82';
