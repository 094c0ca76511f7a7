import { fork } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { SinkClassName } from '../../sinks/index.ts';
import { componentLogger, PROJECT_ROOT } from '../base/index.ts';
import { type CrashPlan, type History, HistoryWriter, mergeHistory, readHistory } from './history/index.ts';
import { validateCrashPlan } from './runtime/crash-points.ts';
import type { SourceConfig } from './source/source-config.ts';
import { StartedFlowWorker } from './started-worker.ts';
import { bundledWorker, WORKER_SOURCE } from './worker-bundle.ts';
import type { WorkerConfig } from './worker-config.ts';

export interface SupervisorOptions {
  /** The run directory: `state.sqlite`, `history/` (one file per process), `logs/`, `history.jsonl` after `close`. */
  readonly dir: string;
  readonly source: SourceConfig;
  /** A `SinkFactoryModule` for every worker, absolute or relative to the worker root (default: the real sinks). */
  readonly factoryModule?: string;
  /** Passed to every worker's sinks (e.g. password variables). */
  readonly env?: Readonly<Record<string, string>>;
  /** Spec host → `http://ip:port`, see `WorkerConfig.endpoints`. */
  readonly endpoints?: Readonly<Record<string, string>>;
  readonly log?: Logger;
  /** The source tree workers run from (a mutated copy, for the mutation tests); default this repository. */
  readonly workerRoot?: string;
}

export interface LaunchOptions {
  /** The raw sink spec; a changed spec on a later launch is how topology, class and parameter changes apply. */
  readonly spec: unknown;
  /** Default: every partition of the source. */
  readonly partitions?: readonly number[];
  readonly crash?: CrashPlan;
  readonly deliveryPaused?: boolean;
  /** Classes the worker's registry lacks (an older binary). */
  readonly without?: readonly SinkClassName[];
  readonly env?: Readonly<Record<string, string>>;
  /** What this launch changes, recorded with it for the checkers (e.g. `a shard added`). */
  readonly label?: string;
}

/**
 * Starts and restarts sink workers (child processes) over one state file. A restart is simply a
 * new launch on the same partitions: the new worker reads the store and replays what the last
 * one left. The supervisor records launches and exits in its own history file; `close` kills
 * whatever still runs and merges every process's history into `history.jsonl`.
 */
export class FlowSupervisor implements AsyncDisposable {
  readonly storePath: string;
  readonly historyDir: string;
  private readonly history: HistoryWriter;
  private readonly log: Logger;
  private readonly live = new Set<StartedFlowWorker>();
  private readonly partitionsSeen = new Set<number>();
  private launches = 0;

  constructor(private readonly options: SupervisorOptions) {
    this.storePath = join(options.dir, 'state.sqlite');
    this.historyDir = join(options.dir, 'history');
    mkdirSync(join(options.dir, 'logs'), { recursive: true });
    this.history = HistoryWriter.open(this.historyDir, `supervisor-${process.pid}`);
    this.log = options.log ?? componentLogger('flow-supervisor');
  }

  /** Starts a worker and waits until each of its partitions started or refused; rejects with `WorkerRefusedError` if the spec or store was refused. */
  async launch(options: LaunchOptions): Promise<StartedFlowWorker> {
    if (options.crash) validateCrashPlan(options.crash);
    const root = this.options.workerRoot ?? PROJECT_ROOT;
    const entry = await this.workerEntry(root);
    this.launches += 1;
    const workerId = `w${process.pid}-${this.launches}`;
    const partitions = options.partitions ?? Array.from({ length: this.options.source.partitions }, (_, i) => i);
    const config: WorkerConfig = {
      workerId,
      storePath: this.storePath,
      historyDir: this.historyDir,
      spec: options.spec,
      partitions,
      source: this.options.source,
      crash: options.crash,
      deliveryPaused: options.deliveryPaused,
      without: options.without,
      env: { ...this.options.env, ...options.env },
      endpoints: this.options.endpoints,
      factoryModule: this.options.factoryModule && resolve(root, this.options.factoryModule),
      logPath: join(this.options.dir, 'logs', `${workerId}.jsonl`),
    };
    const outputFile = join(this.options.dir, 'logs', `${workerId}.out`);
    const output = openSync(outputFile, 'a');
    const child = fork(entry.module, [], {
      cwd: root,
      execArgv: entry.execArgv,
      env: { ...process.env, ...config.env },
      stdio: ['ignore', output, output, 'ipc'],
      serialization: 'advanced',
    });
    closeSync(output);
    // Without a listener an 'error' (e.g. a failed IPC send) would throw in the supervisor; the
    // worker's fate still arrives through 'exit'.
    child.on('error', (error) => this.log.error({ worker: workerId, err: error }, 'worker process error'));
    const worker = new StartedFlowWorker(workerId, child, outputFile);
    this.live.add(worker);
    const restart = partitions.some((partition) => this.partitionsSeen.has(partition));
    for (const partition of partitions) this.partitionsSeen.add(partition);
    const spec = options.spec as { name?: unknown; sink_class_name?: unknown } | null;
    this.history.append({
      type: 'worker-launch',
      worker: workerId,
      workerPid: worker.pid,
      restart,
      sink: String(spec?.name),
      sinkClass: String(spec?.sink_class_name),
      partitions,
      ...(options.crash ? { crash: options.crash } : {}),
      spec: options.spec,
      ...(options.label === undefined ? {} : { label: options.label }),
    });
    void worker.exited.then((exit) => {
      this.live.delete(worker);
      this.history.append({
        type: 'worker-exit',
        worker: workerId,
        workerPid: worker.pid,
        code: exit.code,
        signal: exit.signal,
      });
      this.log.info({ worker: workerId, ...exit }, 'worker exited');
    });
    const started = worker.waitStarted();
    child.send({ type: 'start', config });
    return started;
  }

  /**
   * The real sinks, of this checkout or of a mutated tree, run from their tree's bundled worker
   * under plain `node` (about a quarter of tsx's start-up CPU); a fake factory, resolved against
   * the worker root when the worker starts, runs its source under tsx, as written.
   */
  private async workerEntry(root: string): Promise<{ readonly module: string; readonly execArgv: string[] }> {
    if (this.options.factoryModule === undefined) return { module: await bundledWorker(root), execArgv: [] };
    return { module: resolve(root, WORKER_SOURCE), execArgv: ['--import', 'tsx'] };
  }

  /** The history so far, every process's file merged. */
  readHistory(): History {
    return readHistory(this.historyDir);
  }

  /** Kills the workers still running, then writes `<dir>/history.jsonl`. */
  async close(): Promise<History> {
    await Promise.all([...this.live].map((worker) => worker.kill()));
    this.history.close();
    return mergeHistory(this.historyDir, join(this.options.dir, 'history.jsonl'));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
