import type { ClusterDescription } from './description.ts';
import type { ProcessMemory } from './process/local-process.ts';

/**
 * A member's process as the backend sees it; `unknown` when it does not answer and the backend
 * cannot say why (an external cluster file without a `status` template): a paused member fails a
 * ping just like a dead one, so nothing may be inferred from it.
 */
export type MemberState = 'running' | 'paused' | 'dead' | 'unknown';

/**
 * A running cluster, whatever the backend. Members are ClickHouse nodes (`s1r1`) and Keepers
 * (`k1`); the nemeses act on them by name. Only facts known after start are exposed.
 */
export interface StartedCluster extends AsyncDisposable {
  readonly description: ClusterDescription;
  readonly memberNames: readonly string[];
  /**
   * The process actions (kill, pause, resume, start) the harness can take on members; undefined:
   * all of them (a cluster it started). A scenario that needs a missing one is not run.
   */
  readonly processActions?: ReadonlySet<string>;
  memberState(name: string): Promise<MemberState>;
  /** SIGKILL: no shutdown, no flush. */
  kill(name: string): Promise<void>;
  /** A clean stop (SIGTERM, SIGKILL after a grace period). */
  stop(name: string): Promise<void>;
  /** SIGSTOP: the process keeps its sockets but answers nothing. */
  pause(name: string): Promise<void>;
  resume(name: string): Promise<void>;
  /** Starts a stopped or killed member with its original command line and waits for health. */
  start(name: string): Promise<void>;
  restart(name: string): Promise<void>;
  waitHealthy(name: string, timeoutMs?: number): Promise<void>;
  /**
   * Current and peak RSS of every running member and of the fault proxy (`toxiproxy`), for the
   * soak trend; undefined where the backend does not see its processes (docker).
   */
  memoryUsage(): Promise<Readonly<Record<string, ProcessMemory>> | undefined>;
  /**
   * Stops every process, releases its port reservations and removes what the run wrote in its
   * directory (the directory too when the harness created it and nothing else is left).
   */
  down(): Promise<void>;
}

/** The harness started this cluster (every process action is its own): it may heal or restart anything on it. */
export const startedByHarness = (cluster: Pick<StartedCluster, 'processActions'>): boolean =>
  cluster.processActions === undefined;
