import type { Logger } from 'pino';
import { setTimeout as delay } from 'node:timers/promises';
import { faultSpec, LATENCY, type NemesisContext, planOf, type RunUndo } from '../nemeses/index.ts';
import type { StartedCluster } from '../../harness/cluster/index.ts';
import { type CrashPoint, type History, HistoryWriter } from '../../harness/flow/history/index.ts';
import {
  type FlowSupervisor,
  type StartedFlowWorker,
  WorkerExitedError,
  WorkerRefusedError,
} from '../../harness/flow/index.ts';
import { HarnessError, withTimeout } from '../../harness/base/index.ts';
import type { RawSinkSpec } from '../../properties/arbitraries/index.ts';
import type { ChainLink, ChaosSystem, FaultSpec, OverlappingPair } from '../../properties/schedule/index.ts';
import { aimedEpisode, type EpisodeHeal } from './aimed-episode.ts';
import { type BackgroundWrite, drainRunning } from './background-write.ts';
import { faultChain } from './fault-chain.ts';
import { NemesisRecord } from './nemesis-record.ts';
import { overlapEpisode } from './overlap-episode.ts';
import { recoveryBound, watchRecovery } from './recovery-watch.ts';
import { awaitWritableReplicas, settleCluster } from './settle-cluster.ts';

const STOP_TIMEOUT_MS = 15_000;
/**
 * A stalled sink's graceful stop waits on the same work that made no progress for a whole
 * recovery bound: it gets this long, then it is killed (15 s more per stall made every shrink
 * step of a stalling run a minute long).
 */
const STALLED_STOP_TIMEOUT_MS = 2_000;
const CRASH_WAIT_MS = 30_000;
/**
 * A reconfiguration is aimed like a fault: the next INSERT is held, slowed by this much on its
 * link, let go, and the change is sent while it is surely still in flight.
 */
const RECONFIGURE_LATENCY_MS = 400;
/** A short-window table's cleanup runs every second; a replay 1 s after it already met an expired token (measured on 26.7). */
const DEDUP_CLEANUP_WAIT_MS = 2_500;
const RESTART_AFTER_GIVE_UP = 'restarted after a give-up';
const RESTART_AFTER_STALL = 'restarted after a stall';
const DRAIN_LIMIT_MS = 120_000;

/**
 * What every spec of a run is bound to: the run's own database (runs never see each other's rows)
 * and, when the scenario needs a setting profile, the user that carries it.
 */
export interface RunBinding {
  readonly database: string;
  readonly user?: string | undefined;
}

/**
 * The real system behind the schedule's steps: one sink worker at a time over the run's state
 * store, the nemeses acting on the cluster (each aimed at an INSERT, recorded in the history and,
 * before it acts, in the run's undo list). Each launch records its spec and the change it applies
 * in the history, where the checkers' guard model reads which starts had to refuse. Once `signal` aborts, no worker is launched and every wait of an episode
 * ends: the run's owner stops the workers and undoes what the run did.
 */
export class PipelineSystem implements ChaosSystem {
  private worker: StartedFlowWorker | undefined;
  private spec: RawSinkSpec;
  /** The spec a reconfiguration in flight is changing to: its limits are in force as well until it ends. */
  private reconfiguringTo: RawSinkSpec | undefined;
  private readonly nemesis: NemesisContext;
  /** The nemesis's own history file beside the workers' (fault-start / fault-end / fault-missed). */
  private readonly record: NemesisRecord;
  /** A step's recovery ran out of its bound: the run is a violation whatever comes after. */
  private stalledInStep = false;

  constructor(
    private readonly supervisor: FlowSupervisor,
    private readonly cluster: StartedCluster,
    private readonly undo: RunUndo,
    initialSpec: RawSinkSpec,
    private readonly binding: RunBinding,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
  ) {
    this.spec = initialSpec;
    this.nemesis = { cluster, proxies: undo.deps.proxies, undo, log, database: binding.database };
    this.record = new NemesisRecord(HistoryWriter.open(supervisor.historyDir, 'nemesis'));
  }

  async start(): Promise<void> {
    await this.relaunch(this.spec);
  }

  async writeEpochs(epochs: number): Promise<void> {
    await this.running().runEpochs(epochs);
  }

  async faultEpisode(fault: FaultSpec, epochs: number, holdMs: number): Promise<void> {
    await aimedEpisode(this.episodeDeps(), { plan: planOf(fault), epochs, holdMs });
  }

  async replayAfterDedupWindow(fault: FaultSpec, epochs: number, afterMs: number): Promise<void> {
    const worker = this.running();
    const others = (await worker.status()).map((status) => status.partition).filter((partition) => partition !== 0);
    await aimedEpisode(this.episodeDeps(), {
      plan: planOf(fault),
      epochs,
      holdMs: 0,
      partition: 0,
      beforeOutcome: async () => {
        await delay(afterMs);
        await worker.runEpochs(1, others);
        await drainRunning(worker, others);
        await delay(DEDUP_CLEANUP_WAIT_MS);
      },
    });
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

  async reconfigureWhileWriting(
    dynamic: Readonly<Record<string, unknown>>,
    epochs: number,
    afterMs: number,
  ): Promise<void> {
    const worker = this.running();
    // The dynamic section is replaced as a whole (absent keys would fall back to defaults).
    const next = { ...this.spec.dynamic_parameters, ...dynamic };
    let sent = false;
    const reconfigure = async () => {
      sent = true;
      await worker.reconfigure(next);
    };
    this.reconfiguringTo = { ...this.spec, dynamic_parameters: next };
    try {
      await aimedEpisode(this.episodeDeps(), {
        plan: planOf(faultSpec(LATENCY, { ms: RECONFIGURE_LATENCY_MS, jitter: 0 })),
        epochs,
        holdMs: 0,
        meanwhile: async () => {
          await delay(afterMs);
          await reconfigure();
        },
      });
    } finally {
      this.reconfiguringTo = undefined;
    }
    // No INSERT came to aim at: the change still applies (the coverage check says it met none).
    if (!sent) await reconfigure();
    // A restart later in the run (a crash) starts from the spec as it now is, like a Flow pipeline would.
    this.spec = { ...this.spec, dynamic_parameters: next };
  }

  async restartWithSpec(spec: RawSinkSpec, label: string): Promise<void> {
    await this.relaunch(spec, { label });
    this.log.info({ label }, 'restarted with another spec');
  }

  async holdAndWrite(epochs: number, spec: RawSinkSpec, label: string): Promise<void> {
    const worker = await this.relaunch(spec, { deliveryPaused: true, label });
    await worker.runEpochs(epochs);
  }

  async drain(partitions: readonly number[]): Promise<void> {
    await withTimeout(
      drainRunning(this.running(), partitions),
      DRAIN_LIMIT_MS,
      `drain of partitions ${partitions.join(', ')}`,
    );
  }

  async restartAfterGiveUp(): Promise<void> {
    if ((await this.running().status()).some((partition) => partition.state === 'failed'))
      await this.relaunch(this.spec, { label: RESTART_AFTER_GIVE_UP });
  }

  async faultChain(first: FaultSpec, later: readonly ChainLink[], epochs: number, holdMs: number): Promise<void> {
    await faultChain(
      { ...this.episodeDeps(), restart: () => this.relaunch(this.spec, { deliveryPaused: true }) },
      {
        first: planOf(first),
        later: later.map((link) => ({ plan: planOf(link.fault), meets: link.meets })),
        epochs,
        holdMs,
      },
    );
  }

  async overlappingFaults(faults: OverlappingPair, healFirst: 0 | 1, epochs: number, holdMs: number): Promise<void> {
    await overlapEpisode(this.episodeDeps(), {
      plans: [planOf(faults[0]), planOf(faults[1])],
      healFirst,
      epochs,
      holdMs,
    });
  }

  /**
   * Settles the cluster, delivers everything that can be, stops, returns the history. The sink
   * gets its recovery bound from the moment the cluster is verified healthy (`watchRecovery`); a
   * sink that stalls past it is restarted, as an operator restarts a hung sink, and its history
   * says so. A partition whose sink gave up is restarted once with a new instance, as the seed's
   * operator does after a give-up, so its undelivered batches are judged after their replay.
   */
  async finish(drainTimeoutMs = DRAIN_LIMIT_MS): Promise<History> {
    const healedAt = Date.now();
    const died = await settleCluster(this.cluster, this.undo.journal, this.binding.database);
    if (died.length > 0) {
      this.closeHistory();
      // Every fault was healed before this: a dead member died by itself, and the run proves nothing.
      await this.supervisor.close();
      throw new HarnessError(
        'CLUSTER_MEMBER_DIED',
        `cluster member(s) ${died.join(', ')} died during the run without a nemesis; see cluster-logs/ in the report`,
      );
    }
    if (this.worker !== undefined) {
      const drained = drainRunning(this.worker);
      const outcome = await watchRecovery(this.recoveryDeps(), {
        trigger: 'settle',
        healedAt,
        bound: recoveryBound([this.spec]),
        drained,
        progress: this.progressReading(),
      });
      if (outcome === 'stalled') await this.restartAfterStall(drainTimeoutMs);
      else await drained;
      if ((await this.running().status()).some((partition) => partition.state === 'failed')) {
        await this.relaunch(this.spec, { label: RESTART_AFTER_GIVE_UP });
        await withTimeout(drainRunning(this.running()), drainTimeoutMs, 'the drain after a give-up');
      }
    }
    this.closeHistory();
    await this.stopWorker();
    return this.supervisor.close();
  }

  /** Closes the nemesis's history file (also on a run that ends in an error). */
  closeHistory(): void {
    this.record.close();
  }

  private episodeDeps() {
    return {
      worker: this.running(),
      nemesis: this.nemesis,
      record: this.record,
      signal: this.signal,
      recover: (writing: BackgroundWrite, heal: EpisodeHeal, what: string) => this.recoverEpisode(writing, heal, what),
    };
  }

  private recoveryDeps() {
    const { cluster, record, log, signal } = this;
    const awaitHealthy = (timeoutMs: number) => awaitWritableReplicas(cluster, this.binding.database, timeoutMs);
    return { awaitHealthy, record, log, signal };
  }

  /** The running sink's progress and backlog per partition: what a stall is judged by. */
  private progressReading(): () => Promise<unknown> {
    const worker = this.running();
    return async () =>
      (await worker.status()).map(({ partition, state, progress, undelivered, messagesWritten }) => ({
        partition,
        state,
        progress,
        undelivered,
        messagesWritten,
      }));
  }

  /** After an episode's heal: the episode's writes drained within the recovery bound, or the stalled sink restarted. */
  private async recoverEpisode(writing: BackgroundWrite, heal: EpisodeHeal, what: string): Promise<void> {
    const specs = this.reconfiguringTo === undefined ? [this.spec] : [this.spec, this.reconfiguringTo];
    const outcome = await watchRecovery(this.recoveryDeps(), {
      trigger: 'episode',
      window: heal.window,
      healedAt: heal.healedAt,
      bound: recoveryBound(specs),
      drained: writing.over,
      progress: this.progressReading(),
    });
    if (outcome === 'drained') await writing.finish(what);
    else {
      this.stalledInStep = true;
      await this.restartAfterStall(DRAIN_LIMIT_MS);
    }
  }

  get stalled(): boolean {
    return this.stalledInStep;
  }

  cutSchedule(ran: number, steps: number): void {
    this.record.scheduleCut(ran, steps, 'the sink stalled: the run is a violation whatever the steps after would show');
    this.log.info({ ran, steps }, 'the sink stalled; the rest of the schedule is not run');
  }

  /** A stalled sink stopped (killed when it does not stop) and a new instance drains what it held. */
  private async restartAfterStall(drainTimeoutMs: number): Promise<void> {
    await this.relaunch(this.spec, { label: RESTART_AFTER_STALL, stopTimeoutMs: STALLED_STOP_TIMEOUT_MS });
    await withTimeout(drainRunning(this.running()), drainTimeoutMs, 'the drain after a stall');
  }

  private running(): StartedFlowWorker {
    if (this.worker === undefined) throw new HarnessError('CHAOS_NO_WORKER', 'no sink worker is running');
    return this.worker;
  }

  /** Stops the current worker and launches the next one with `spec`, bound to the run. */
  private async relaunch(
    spec: RawSinkSpec,
    options: { crash?: CrashPoint; deliveryPaused?: boolean; label?: string; stopTimeoutMs?: number } = {},
  ): Promise<StartedFlowWorker> {
    await this.stopWorker(options.stopTimeoutMs);
    const { database, user } = this.binding;
    const bound: RawSinkSpec = {
      ...spec,
      parameters: { ...spec.parameters, database, ...(user === undefined ? {} : { user }) },
    };
    this.spec = spec;
    let worker: StartedFlowWorker;
    // A stopped run's workers are being closed: none may start after that.
    this.signal.throwIfAborted();
    try {
      worker = await this.supervisor.launch({
        spec: bound,
        ...(options.crash ? { crash: { point: options.crash } } : {}),
        ...(options.deliveryPaused ? { deliveryPaused: true } : {}),
        ...(options.label === undefined ? {} : { label: options.label }),
      });
    } catch (error) {
      if (error instanceof WorkerRefusedError)
        throw new HarnessError('CHAOS_SPEC_REFUSED', `the worker refused the spec: ${error.message}`, { cause: error });
      throw error;
    }
    this.worker = worker;
    return worker;
  }

  private async stopWorker(timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker === undefined) return;
    try {
      await withTimeout(worker.stop(), timeoutMs, 'stopping the sink worker');
    } catch {
      await worker.kill();
    }
  }
}
