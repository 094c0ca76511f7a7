import type { Logger } from 'pino';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import type {
  FaultEffect,
  FaultType,
  LinkCounters,
  LogBeforeKill,
  ServerWindow,
  ToxicSpec,
  WindowHit,
} from '../../harness/flow/history/index.ts';
import type { FaultProxyClient } from './fault-proxy-client.ts';
import type { RunUndo } from './run-undo.ts';

export type { FaultEffect } from '../../harness/flow/history/index.ts';

export interface NemesisContext {
  readonly cluster: StartedCluster;
  readonly proxies: FaultProxyClient;
  /** The run's undo list: a fault records each thing it does here before doing it. */
  readonly undo: RunUndo;
  readonly log: Logger;
  /** The run's own database: witnesses look at its tables only, never at an earlier run's. */
  readonly database: string;
}

/** When a fault was in force, and on what; the evidence rules read these. */
export interface FaultWindow {
  readonly type: FaultType;
  readonly description: string;
  /** Proxy names or member names the fault acted on. */
  readonly targets: readonly string[];
  readonly appliedAt: number;
  healedAt?: number;
  /** Set by `apply` or `probe` when the fault's effect was verified directly (a process state, a replica's failing fetches). */
  verified?: boolean;
  /** For faults that slow traffic: an attempt at least this long through a target counts as affected. */
  readonly slowerThanMs?: number;
  /** Toxic faults: the toxic added to every target. */
  readonly toxic?: ToxicSpec;
  /** Server-error faults: the ClickHouse code an INSERT is answered while the fault is in force. */
  readonly serverCode?: string;
  /** Toxic faults: the targets' byte counters when applied, and once healed (`link-counters.ts`). */
  readonly links?: LinkCounters;
  linksAfterHeal?: LinkCounters;
  /** Server-window faults: the windows of the INSERT path it must be seen acting in, in order. */
  readonly windows?: readonly ServerWindow[];
  /** Server-window faults: what the nemesis saw of them, set by the time it healed. */
  windowHit?: WindowHit;
  /** A replica kill: the victim's log of the run's INSERTs, read right before it. */
  readonly logBeforeKill?: LogBeforeKill;
}

/**
 * A fault with its undo. `apply` must make the fault real (and may verify it took effect),
 * recording each thing it does in the run's undo list first (`context.undo.fault()`), and undo
 * its own work when it fails half-way; `heal` undoes exactly what was recorded and is safe to
 * call twice. `toString` reads like `latency(s1r1_client, 1500ms)`.
 */
export interface Fault {
  readonly type: FaultType;
  readonly targets: readonly string[];
  readonly effect: FaultEffect;
  apply(context: NemesisContext): Promise<FaultWindow>;
  /** Called just before heal, for faults whose effect is witnessed on the cluster; polls until `until` at the latest. */
  probe?(context: NemesisContext, window: FaultWindow, until: number): Promise<void>;
  heal(context: NemesisContext, window: FaultWindow): Promise<void>;
  toString(): string;
}
