import type { SinkClassName } from '../../sinks/index.ts';
import type { CrashPlan } from './history/index.ts';
import type { SourceConfig } from './source/source-config.ts';

/** Everything a worker process is started with (sent over IPC as its first message). */
export interface WorkerConfig {
  /** Unique per launch; names the worker's history file and log. */
  readonly workerId: string;
  readonly storePath: string;
  readonly historyDir: string;
  /** The raw sink spec (JSON), validated in the worker against its own registry. */
  readonly spec: unknown;
  readonly partitions: readonly number[];
  readonly source: SourceConfig;
  readonly crash?: CrashPlan;
  /** Batching: committed batches wait for `drain` instead of being delivered at once. */
  readonly deliveryPaused?: boolean;
  /** Classes the worker's registry lacks (an older binary). */
  readonly without?: readonly SinkClassName[];
  /** The sinks' environment (`password_env_var` is resolved from it). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Spec host → `http://ip:port` (the embedded cluster: node name → its client proxy), through
   * the sinks' `addressBook`; a host missing from it is refused, never looked up in DNS.
   */
  readonly endpoints?: Readonly<Record<string, string>>;
  /** Absolute path of a module exporting `createSinkFactory` (a `SinkFactoryModule`); default: the real sinks. */
  readonly factoryModule?: string;
  /** pino JSON log of this worker. */
  readonly logPath?: string;
}
