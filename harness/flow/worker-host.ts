import type { Logger } from 'pino';
import {
  addressBook,
  parseSinkSpec,
  SINK_CLASSES,
  type SinkSpec,
  validateDynamicParameters,
} from '../../sinks/index.ts';
import { HarnessError } from '../base/index.ts';
import type { HistorySink } from './history/index.ts';
import { CrashSwitch, type CrashAction } from './runtime/crash-points.ts';
import { InsertGates, type GateChannel, type GatePlan } from './runtime/insert-gates.ts';
import {
  errorFields,
  InsertTally,
  type EpochOutcome,
  type PartitionRuntime,
  type PartitionStatus,
} from './runtime/partition-runtime.ts';
import type { SinkFactory } from './runtime/sink-factory.ts';
import { startPartition } from './runtime/start-partition.ts';
import { DeterministicSource } from './source/deterministic-source.ts';
import { StateStore } from './store/state-store.ts';
import type { WorkerConfig } from './worker-config.ts';

export type StartRefusal = { readonly stage: 'spec' | 'store'; readonly code: string; readonly message: string };

/**
 * The runtime one worker process hosts: a spec, a store and one partition job per partition. The
 * order of `start` is the contract of the seed's rollback story: the spec is validated against
 * this worker's registry BEFORE the store file is opened, so a class the registry lacks is
 * refused with the state untouched.
 */
export class WorkerHost {
  private constructor(
    readonly spec: SinkSpec,
    private readonly store: StateStore,
    private readonly runtimes: ReadonlyMap<number, PartitionRuntime>,
    private readonly history: HistorySink,
    private readonly gates: InsertGates,
    private readonly log: Logger,
  ) {}

  static async start(
    config: WorkerConfig,
    factory: SinkFactory,
    deps: {
      readonly history: HistorySink;
      readonly crashAction: CrashAction;
      readonly log: Logger;
      readonly gates?: GateChannel;
    },
  ): Promise<WorkerHost | StartRefusal> {
    const { history, log } = deps;
    const env = { ...process.env, ...config.env };
    let spec: SinkSpec;
    try {
      spec = parseSinkSpec(config.spec, { registry: factory.registry });
    } catch (error) {
      const { message, code = 'UNKNOWN' } = errorFields(error);
      history.append({ type: 'spec-refusal', worker: config.workerId, code, message });
      return { stage: 'spec', code, message };
    }
    let store: StateStore;
    try {
      store = StateStore.open(config.storePath);
    } catch (error) {
      const { message, code = 'UNKNOWN' } = errorFields(error);
      history.append({ type: 'store-refusal', worker: config.workerId, path: config.storePath, code, message });
      return { stage: 'store', code, message };
    }
    history.append({
      type: 'worker-start',
      worker: config.workerId,
      sink: spec.name,
      sinkClass: spec.sink_class_name,
      partitions: config.partitions,
    });

    const crash = new CrashSwitch(config.crash, deps.crashAction);
    const gates = new InsertGates(deps.gates, history);
    const resolveEndpoint = config.endpoints && addressBook(config.endpoints);
    const runtimes = new Map<number, PartitionRuntime>();
    // One after another: `init` order (and so the history) does not depend on timing.
    for (const partition of config.partitions) {
      const partitionLog = log.child({ partition });
      const deps = {
        spec,
        partition,
        store,
        source: new DeterministicSource(config.source, partition),
        history,
        crash,
        gates,
        inserts: new InsertTally(),
        log: partitionLog,
      };
      runtimes.set(
        partition,
        await startPartition(deps, factory, { env, resolveEndpoint, deliveryPaused: config.deliveryPaused ?? false }),
      );
    }
    return new WorkerHost(spec, store, runtimes, history, gates, log);
  }

  status(): PartitionStatus[] {
    return [...this.runtimes.values()].map((runtime) => runtime.status());
  }

  /** Runs `count` epochs on each partition (partitions concurrently); a partition stops at its first non-committed epoch. */
  async runEpochs(count: number, partitions?: readonly number[]): Promise<Record<number, EpochOutcome[]>> {
    const results = await Promise.all(
      this.select(partitions).map(async (runtime) => {
        const outcomes: EpochOutcome[] = [];
        for (let i = 0; i < count; i += 1) {
          const outcome = await runtime.runEpoch();
          outcomes.push(outcome);
          if (outcome.status !== 'committed') break;
        }
        return [runtime.partition, outcomes] as const;
      }),
    );
    return Object.fromEntries(results);
  }

  /** Arms a one-shot gate on the next INSERT attempt (see `runtime/insert-gates.ts`). */
  armGate(plan: GatePlan): void {
    this.gates.arm(plan);
  }

  /** True when the gate had not caught an attempt yet. */
  disarmGate(id: number): boolean {
    return this.gates.disarm(id);
  }

  /**
   * Delivers what each partition holds, partitions concurrently, and answers once every one of
   * them ended: a partition that gave up or refused never cuts another's delivery short (as in
   * Flow, where partition jobs fail alone). The first failure is then rethrown.
   */
  async drain(partitions?: readonly number[]): Promise<void> {
    const settled = await Promise.allSettled(this.select(partitions).map((runtime) => runtime.drain()));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** Dynamic reconfiguration of the running sinks, validated like the original (dynamic section only). */
  async reconfigure(raw: unknown, partitions?: readonly number[]): Promise<void> {
    const result = validateDynamicParameters(raw, SINK_CLASSES[this.spec.sink_class_name]);
    if (!result.ok)
      throw new HarnessError('SINK_SPEC_INVALID', result.problems.map((problem) => problem.message).join('\n'));
    const selected = this.select(partitions);
    const startedAt = Date.now();
    // A sink that throws on valid parameters is the sink's own outcome, judged by the checkers,
    // not a failure of the run: the partition goes on with the parameters it had.
    const outcomes = await Promise.allSettled(selected.map((runtime) => runtime.reconfigure(result.dynamic)));
    const took: number[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const partition = selected[index]?.partition ?? -1;
      if (outcome.status === 'fulfilled') took.push(partition);
      else {
        this.history.append({
          type: 'reconfigure-failed',
          sink: this.spec.name,
          partition,
          error: errorFields(outcome.reason),
        });
        this.log.warn({ partition, err: outcome.reason }, 'the sink refused valid dynamic parameters');
      }
    }
    this.history.append({
      type: 'reconfigured',
      startedAt,
      sink: this.spec.name,
      partitions: took,
      dynamic: { ...result.dynamic },
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.close()));
    this.store.close();
  }

  private select(partitions: readonly number[] | undefined): PartitionRuntime[] {
    if (partitions === undefined) return [...this.runtimes.values()];
    return partitions.map((partition) => {
      const runtime = this.runtimes.get(partition);
      if (!runtime)
        throw new HarnessError(
          'FLOW_PARTITION_UNKNOWN',
          `This worker does not host partition ${partition}; it hosts ${[...this.runtimes.keys()].join(', ')}`,
        );
      return runtime;
    });
  }
}
