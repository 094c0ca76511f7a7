import type { DeliveryGuarantee } from '../../sinks/index.ts';
import type { AnomalyKind } from './anomaly-category.ts';

/** The anomalies of a delivery history a guarantee may tolerate (after Jepsen's total-queue checker). */
export type DeliveryAnomaly = Extract<AnomalyKind, 'lost' | 'duplicated' | 'unexpected'>;

export interface GuaranteePolicy {
  readonly guarantee: DeliveryGuarantee;
  /** Categories this guarantee tolerates; every other non-empty category is a violation. */
  readonly allowed: ReadonlySet<DeliveryAnomaly>;
}

/** exactly-once allows none; at-least-once allows duplicates only; at-most-once allows loss only. */
export const POLICIES: Readonly<Record<DeliveryGuarantee, GuaranteePolicy>> = {
  'exactly-once': { guarantee: 'exactly-once', allowed: new Set() },
  'at-least-once': { guarantee: 'at-least-once', allowed: new Set(['duplicated']) },
  'at-most-once': { guarantee: 'at-most-once', allowed: new Set(['lost']) },
};
