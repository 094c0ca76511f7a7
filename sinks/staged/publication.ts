import type { DeliveryGuarantee } from '../sink-classes.ts';

/**
 * How a staged load is switched into production (seed 002), each metadata-only:
 * `move` — `ALTER TABLE staging MOVE PARTITION p TO TABLE production` (the staging partition is emptied);
 * `replace` — `ALTER TABLE production REPLACE PARTITION p FROM staging` (production's partition becomes staging's copy);
 * `attach` — `ALTER TABLE production ATTACH PARTITION p FROM staging` (staging's parts copied and added).
 */
export type PublishOperation = 'move' | 'replace' | 'attach';

export const PUBLISH_OPERATIONS: readonly PublishOperation[] = ['move', 'replace', 'attach'];

/** A load's partition: the production tables are partitioned by the load's id, so a load is one partition. */
export type LoadId = number;

export function publishStatement(
  operation: PublishOperation,
  database: string,
  table: string,
  staging: string,
  load: LoadId,
): string {
  switch (operation) {
    case 'move':
      return `ALTER TABLE ${database}.${staging} MOVE PARTITION ${load} TO TABLE ${database}.${table}`;
    case 'replace':
      return `ALTER TABLE ${database}.${table} REPLACE PARTITION ${load} FROM ${database}.${staging}`;
    case 'attach':
      return `ALTER TABLE ${database}.${table} ATTACH PARTITION ${load} FROM ${database}.${staging}`;
  }
}

/**
 * What a load published with `operation` owes when the publication's answer is lost and the loader
 * repeats it. A second MOVE finds the staging partition empty and moves nothing; a second REPLACE
 * replaces the partition with the same parts: exactly-once. A second ATTACH FROM adds staging's
 * parts again: at-least-once (measured on 26.7: ReplicatedMergeTree's block dedup hides the copy
 * while its window holds the parts' hashes; a MergeTree, or a dedup window of 0, keeps both).
 */
export function owedByOperation(operation: PublishOperation): Exclude<DeliveryGuarantee, 'at-most-once'> {
  return operation === 'attach' ? 'at-least-once' : 'exactly-once';
}
