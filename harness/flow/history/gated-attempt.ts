/** Which hold of a gated INSERT attempt (`runtime/insert-gates.ts`) an `insert-gated` event records. */
export type GatePhase = 'request' | 'outcome';

/** The attempt a gate caught, as the driver needs it to aim a fault. */
export interface GatedAttempt {
  readonly gate: number;
  readonly partition: number;
  readonly batch: number;
  readonly shard: string | null;
  /** `host:port` the attempt goes to. */
  readonly endpoint: string;
  readonly queryId: string;
  readonly attempt: number;
}
