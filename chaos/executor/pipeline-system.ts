import type { Logger } from 'pino';
import type { Toxiproxy } from 'toxiproxy-node-client';
import type { Fault, NemesisContext } from '../nemeses/fault.ts';
import type { WindowWithEffect } from '../nemeses/fired.ts';
import type { StartedCluster } from '../../harness/cluster/started-cluster.ts';
import { insertAttempts, type History } from '../../harness/flow/history/history-reader.ts';
import { HistoryWriter } from '../../harness/flow/history/history-writer.ts';
import type { CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import type { StartedFlowWorker } from '../../harness/flow/started-worker.ts';
import type { FlowSupervisor } from '../../harness/flow/supervisor.ts';
import { WorkerExitedError, WorkerRefusedError } from '../../harness/flow/worker-errors.ts';
import { HarnessError } from '../../harness/errors.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/arb-sink-spec.ts';
import type { ChaosSystem } from '../../properties/model/chaos-system.ts';
import { settleCluster } from './settle-cluster.ts';
import { topologyKey } from './topology-key.ts';

const STOP_TIMEOUT_MS = 15_000;
const IN_FLIGHT_WAIT_MS = 5_000;
const CLOCK_MARGIN_MS = 500;
const CRASH_WAIT_MS = 30_000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HarnessError('CHAOS_STEP_TIMEOUT', `${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Epochs and their asynchronous delivery (outbox, at-most-once queue) running while the executor
 * does something else (holds a fault, reconfigures); settled into a value at once, so a
 * rejection meanwhile is never unhandled.
 */
class BackgroundWrite {
  private done = false;
  private readonly outcome: Promise<unknown>;

  constructor(worker: StartedFlowWorker, epochs: number) {
    this.outcome = worker
      .runEpochs(epochs)
      .then(() => worker.drain())
      .then(
        () => undefined,
        (error: unknown) => error,
      )
      .finally(() => {
        this.done = true;
      });
  }

  get settled(): boolean {
    return this.done;
  }

  /** Waits for the writes (bounded) and rethrows their error. */
  async finish(what: string): Promise<void> {
    const error = await withTimeout(this.outcome, 120_000, what);
    if (error !== undefined) throw error;
  }
}

/** What the executor's model of the topology guard expects from one partition at one start. */
export interface StartExpectation {
  readonly partition: number;
  readonly refuse: boolean;
  /** The routing layout changed (not only a Keeper table): the refusal text is the seed's, exactly. */
  readonly routingChanged: boolean;
  readonly undelivered: number;
  readonly from: number;
  until: number;
}

/** The spec in force from a moment on (placement is judged against the spec that delivered a row). */
export interface SpecPeriod {
  readonly from: number;
  readonly spec: RawSinkSpec;
}

/**
 * The real system behind the model commands: one sink worker at a time over the run's state
 * store, the nemeses acting on the cluster, the record of every fault window, and an
 * independent model of the topology guard (which starts must refuse).
 */
export class PipelineSystem implements ChaosSystem {
  readonly windows: WindowWithEffect[] = [];
  readonly expectations: StartExpectation[] = [];
  readonly specs: SpecPeriod[] = [];
  private worker: StartedFlowWorker | undefined;
  private spec: RawSinkSpec;
  private readonly nemesis: NemesisContext;
  private readonly startedUnder = new Map<number, string>();
  private readonly undelivered = new Map<number, number>();
  /** The nemesis's own history file beside the workers' (fault-start / fault-end). */
  private readonly nemesisHistory: HistoryWriter;

  constructor(
    private readonly supervisor: FlowSupervisor,
    private readonly cluster: StartedCluster,
    toxiproxy: Toxiproxy,
    initialSpec: RawSinkSpec,
    /** Every spec is bound to the run's own database, so runs never see each other's rows. */
    private readonly database: string,
    private readonly log: Logger,
  ) {
    this.spec = initialSpec;
    this.nemesis = { cluster, toxiproxy, log };
    this.nemesisHistory = HistoryWriter.open(supervisor.historyDir, 'nemesis');
  }

  async start(): Promise<void> {
    await this.relaunch(this.spec);
  }

  async writeEpochs(epochs: number): Promise<void> {
    await this.running().runEpochs(epochs);
  }

  async faultEpisode(fault: Fault, epochs: number, holdMs: number): Promise<void> {
    const window = await fault.apply(this.nemesis);
    const record: WindowWithEffect = { ...window, effect: fault.effect };
    this.windows.push(record);
    const id = this.windows.length;
    this.nemesisHistory.append({ type: 'fault-start', window: id, fault: window.type, description: window.description, targets: window.targets });
    // The epochs and their delivery both meet the fault.
    const writing = new BackgroundWrite(this.running(), epochs);
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    await fault.probe?.(this.nemesis, record);
    await fault.heal(this.nemesis, record);
    this.nemesisHistory.append({ type: 'fault-end', window: id, fault: window.type });
    await writing.finish(`write(${epochs}) after ${fault.toString()}`);
  }

  async crashSink(point: CrashPoint): Promise<void> {
    let armed: StartedFlowWorker;
    try {
      armed = await this.relaunch(this.spec, { crash: point });
    } catch (error) {
      // A worker replays undelivered batches while it starts: the armed point may be hit right there.
      if (!(error instanceof WorkerExitedError)) throw error;
      await this.relaunch(this.spec);
      return;
    }
    // Traffic until the armed point is hit: epochs for the synchronous classes, a drain for delivery.
    const exited = armed.exited.then(() => true);
    const work = (async () => {
      for (let round = 0; round < 5; round++) {
        await armed.runEpochs(1);
        await armed.drain();
      }
      return false;
    })().catch(() => true);
    const crashed = await withTimeout(Promise.race([exited, work]), CRASH_WAIT_MS, `crash at ${point}`);
    if (!crashed) this.log.warn({ point }, 'crash point not reached; the coverage check will say so');
    await this.relaunch(this.spec);
  }

  async reconfigureWhileWriting(dynamic: Readonly<Record<string, unknown>>, epochs: number, afterMs: number): Promise<void> {
    const worker = this.running();
    // Earlier than now by a margin: the workers stamp events with their own clock.
    const since = Date.now() - CLOCK_MARGIN_MS;
    const writing = new BackgroundWrite(worker, epochs);
    await this.insertInFlight(since, () => writing.settled);
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    // The dynamic section is replaced as a whole (absent keys would fall back to defaults).
    const next = { ...this.spec.dynamic_parameters, ...dynamic };
    await worker.reconfigure(next);
    // A restart later in the run (a crash) starts from the spec as it now is, like a Flow pipeline would.
    this.spec = { ...this.spec, dynamic_parameters: next };
    await writing.finish(`write(${epochs}) around a reconfiguration`);
  }

  async restartWithSpec(spec: RawSinkSpec, label: string): Promise<void> {
    await this.relaunch(spec);
    this.log.info({ label }, 'restarted with another spec');
  }

  async holdAndWrite(epochs: number): Promise<void> {
    const worker = await this.relaunch(this.spec, { deliveryPaused: true });
    await worker.runEpochs(epochs);
  }

  async drain(partitions: readonly number[]): Promise<void> {
    await withTimeout(this.running().drain(partitions), 120_000, `drain of partitions ${partitions.join(', ')}`);
  }

  /** Settles the cluster, delivers everything that can be, stops, returns the history. */
  async finish(drainTimeoutMs = 120_000): Promise<History> {
    this.closeHistory();
    const died = await settleCluster(this.cluster, this.database);
    if (died.length > 0) {
      // Every fault was healed before this: a dead member died by itself, and the run proves nothing.
      await this.supervisor.close();
      throw new HarnessError('CLUSTER_MEMBER_DIED', `cluster member(s) ${died.join(', ')} died during the run without a nemesis; see cluster-logs/ in the report`);
    }
    const worker = this.worker;
    if (worker !== undefined) {
      const running = (await worker.status()).filter((partition) => partition.state === 'running').map((partition) => partition.partition);
      if (running.length > 0) await withTimeout(worker.drain(running), drainTimeoutMs, 'the final drain');
    }
    await this.stopWorker();
    const end = Date.now();
    for (const expectation of this.expectations) if (expectation.until === Number.POSITIVE_INFINITY) expectation.until = end;
    return this.supervisor.close();
  }

  /**
   * Waits (polling the workers' history files) until an INSERT invoked since `since` has no
   * completion yet, so a change right after meets it in flight; stops waiting when the writes are
   * over or after a while, and lets the coverage check say whether any change met one.
   */
  private async insertInFlight(since: number, writesOver: () => boolean): Promise<void> {
    const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
    while (Date.now() < deadline && !writesOver()) {
      const open = insertAttempts(this.supervisor.readHistory().events).some((attempt) => attempt.invoke.at >= since && attempt.complete === undefined);
      if (open) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  /** Closes the nemesis's history file (also on a run that ends in an error). */
  closeHistory(): void {
    this.nemesisHistory.close();
  }

  private running(): StartedFlowWorker {
    if (this.worker === undefined) throw new HarnessError('CHAOS_NO_WORKER', 'no sink worker is running');
    return this.worker;
  }

  /** Stops the current worker, decides which partitions must refuse, launches the next one. */
  private async relaunch(spec: RawSinkSpec, options: { crash?: CrashPoint; deliveryPaused?: boolean } = {}): Promise<StartedFlowWorker> {
    const previous = this.worker;
    if (previous !== undefined) {
      try {
        for (const status of await previous.status()) this.undelivered.set(status.partition, status.undelivered);
      } catch {
        // A crashed worker answers nothing; the store still holds what it last reported.
      }
    }
    await this.stopWorker();
    const from = Date.now();
    for (const expectation of this.expectations) if (expectation.until === Number.POSITIVE_INFINITY) expectation.until = from;
    const key = topologyKey(spec, this.cluster.description);
    this.spec = spec;
    const bound: RawSinkSpec = { ...spec, parameters: { ...spec.parameters, database: this.database } };
    this.specs.push({ from, spec: bound });
    let worker: StartedFlowWorker;
    try {
      worker = await this.supervisor.launch({
        spec: bound,
        ...(options.crash ? { crash: { point: options.crash } } : {}),
        ...(options.deliveryPaused ? { deliveryPaused: true } : {}),
      });
    } catch (error) {
      if (error instanceof WorkerRefusedError) throw new HarnessError('CHAOS_SPEC_REFUSED', `the worker refused the spec: ${error.message}`, { cause: error });
      throw error;
    }
    for (const status of worker.partitions) {
      const before = this.startedUnder.get(status.partition);
      const undelivered = this.undelivered.get(status.partition) ?? 0;
      const changed = before !== undefined && before !== key;
      this.expectations.push({
        partition: status.partition,
        refuse: changed && undelivered > 0,
        routingChanged: changed && routingPart(before) !== routingPart(key),
        undelivered,
        from,
        until: Number.POSITIVE_INFINITY,
      });
      if (status.state === 'running') this.startedUnder.set(status.partition, key);
    }
    this.worker = worker;
    return worker;
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker === undefined) return;
    try {
      await withTimeout(worker.stop(), STOP_TIMEOUT_MS, 'stopping the sink worker');
    } catch {
      await worker.kill();
    }
  }
}

const routingPart = (key: string | undefined) => key?.split(' ')[0];
