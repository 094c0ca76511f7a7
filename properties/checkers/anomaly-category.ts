/**
 * Every kind of anomaly a checker reports, one home for the vocabulary the checkers write, the
 * reports print and the mutant catalogue is caught in. `diverged` is the only kind that names
 * its subject in the category (`diverged:s1r2`, a replica that differs from its shard's first).
 */
export const ANOMALY_KINDS = [
  // total-queue (the guarantee's policy decides which of these it allows)
  'lost',
  'duplicated',
  'unexpected',
  // replica-convergence, placement
  'diverged',
  'distributed-mismatch',
  'misplaced',
  // token
  'token-covers-two-row-sets',
  'token-not-as-owed',
  // async-insert: the async settings the server ran an INSERT under
  'async-insert-not-as-owed',
  // refusal (the topology guard)
  'refusal-missing',
  'refusal-text',
  'inserted-while-refusing',
  'refusal-unexpected',
  // give-up
  'give-up-text',
  'give-up-on-transient',
  'give-up-early',
  'give-up-late',
  'give-up-without-attempt',
  'write-after-give-up',
  // sink-contract
  'reconfigure-refused',
  'epoch-refused',
  'pending-dropped',
  'warning-missing',
  'warning-unfounded',
  // outcome
  'ok-but-failed-on-server',
  // server-log: an INSERT into the run's database that no attempt of the history explains
  'unrecorded-insert',
  // view: the table a materialized view fills from the target
  'view-lost',
  'view-duplicated',
  'view-unexpected',
  'view-diverged',
  // liveness: the sink did not drain within its bound after a heal, the cluster healthy
  'stalled',
  // reads (staged publication): what a reader saw while the loads were published
  'fractured-read',
  'phantom-read',
] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

/** An anomaly's category as results carry it: its kind, or `diverged:<replica>`. */
export type AnomalyCategory = Exclude<AnomalyKind, 'diverged'> | `diverged:${string}`;

export const divergedOn = (replica: string): AnomalyCategory => `diverged:${replica}`;

/** The kind a category belongs to (`diverged:s1r2` is `diverged`). */
export const anomalyKind = (category: AnomalyCategory): AnomalyKind =>
  category.startsWith('diverged:') ? 'diverged' : (category as Exclude<AnomalyKind, 'diverged'>);
