import type { ChildProcess } from 'node:child_process';
import { HarnessError } from '../base/index.ts';
import { InsertGate } from './insert-gate.ts';
import type { RetriedAttempt } from './runtime/insert-gates.ts';
import type { EpochOutcome, PartitionStatus } from './runtime/partition-runtime.ts';
import { WorkerExitedError, WorkerRefusedError, type WorkerExit } from './worker-errors.ts';
import type { CommandResults, WorkerCommand, WorkerMessage } from './worker-protocol.ts';

interface Pending {
  readonly op: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A running worker process as the supervisor drives it. Every command resolves with the worker's
 * reply, or rejects with `WorkerExitedError` if the worker dies first (a planned crash lands
 * there); `exited` always resolves with how it ended.
 */
export class StartedFlowWorker {
  readonly exited: Promise<WorkerExit>;
  private readonly pending = new Map<number, Pending>();
  private readonly gates = new Map<number, InsertGate>();
  private nextId = 0;
  private nextGate = 1;
  private exit: WorkerExit | undefined;
  private startedPartitions: PartitionStatus[] = [];

  constructor(
    readonly id: string,
    private readonly child: ChildProcess,
    /** The worker's stdout/stderr (its pino log is beside it). */
    readonly logFile: string,
  ) {
    this.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        for (const request of this.pending.values())
          request.reject(new WorkerExitedError(id, this.exit, request.op, logFile));
        this.pending.clear();
        for (const gate of this.gates.values())
          gate.onExit(new WorkerExitedError(id, this.exit, `gate ${gate.id}`, logFile));
        this.gates.clear();
        resolveExit(this.exit);
      });
    });
    child.on('message', (message: WorkerMessage) => this.onMessage(message));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** The partitions as they stood right after start: `running` or `refused` (with the exact message). */
  get partitions(): readonly PartitionStatus[] {
    return this.startedPartitions;
  }

  /** Resolves once every partition has started or refused; rejects if the whole worker refused or died. */
  waitStarted(): Promise<this> {
    return new Promise((resolveStart, rejectStart) => {
      this.pending.set(-1, { op: 'start', resolve: () => resolveStart(this), reject: rejectStart });
    });
  }

  runEpochs(count: number, partitions?: readonly number[]): Promise<Record<number, EpochOutcome[]>> {
    return this.request({ op: 'run-epochs', count, partitions });
  }

  drain(partitions?: readonly number[]): Promise<null> {
    return this.request({ op: 'drain', partitions });
  }

  status(): Promise<PartitionStatus[]> {
    return this.request({ op: 'status' });
  }

  /** Dynamic reconfiguration of the running sinks (the `dynamic_parameters` section only). */
  reconfigure(dynamic: unknown, partitions?: readonly number[]): Promise<null> {
    return this.request({ op: 'reconfigure', dynamic, partitions });
  }

  /**
   * Arms a one-shot gate on the next INSERT attempt (of `partition`, or of any; only a batch's
   * first attempt with `firstAttempt`; only one alone on its shard with `aloneOnShard`; only a retry of one attempt with `retryOf`): the attempt is
   * held before its request and after its outcome until the returned gate opens each phase.
   */
  async armGate(
    partition?: number,
    options: {
      readonly firstAttempt?: boolean;
      readonly aloneOnShard?: boolean;
      readonly retryOf?: RetriedAttempt;
    } = {},
  ): Promise<InsertGate> {
    const id = this.nextGate++;
    const gate = new InsertGate(
      id,
      (phase) => {
        if (this.exit === undefined) this.child.send({ type: 'gate-open', gate: id, phase });
      },
      async () => {
        this.gates.delete(id);
        return this.exit === undefined ? this.request({ op: 'disarm-gate', gate: id }) : false;
      },
    );
    this.gates.set(id, gate);
    await this.request({
      op: 'arm-gate',
      plan: { id, ...(partition === undefined ? {} : { partition }), ...options },
    });
    return gate;
  }

  /** Graceful: sinks closed, store closed, history synced, exit 0. */
  async stop(): Promise<WorkerExit> {
    await this.request({ op: 'stop' });
    return this.exited;
  }

  /** A crash from outside (the nemesis), at no particular point. */
  async kill(): Promise<WorkerExit> {
    if (this.exit === undefined) this.child.kill('SIGKILL');
    return this.exited;
  }

  private request<Op extends WorkerCommand['op']>(
    command: Extract<WorkerCommand, { op: Op }>,
  ): Promise<CommandResults[Op]> {
    if (this.exit !== undefined)
      return Promise.reject(new WorkerExitedError(this.id, this.exit, command.op, this.logFile));
    const id = this.nextId++;
    return new Promise((resolveReply, rejectReply) => {
      this.pending.set(id, { op: command.op, resolve: resolveReply as (value: unknown) => void, reject: rejectReply });
      this.child.send({ type: 'request', id, command }, (error) => {
        // The channel closed under us: the exit handler rejects the request with the real cause.
        if (error) this.child.kill('SIGKILL');
      });
    });
  }

  private onMessage(message: WorkerMessage): void {
    if (message.type === 'gate-held') {
      const gate = this.gates.get(message.attempt.gate);
      // A gate already disarmed on this side: let the attempt go at once.
      if (gate === undefined) this.child.send({ type: 'gate-open', gate: message.attempt.gate, phase: message.phase });
      else gate.onHeld(message.phase, message.attempt, message.outcome);
    } else if (message.type === 'started') {
      this.startedPartitions = message.partitions;
      this.settle(-1, (request) => request.resolve(this));
    } else if (message.type === 'start-refused') {
      const { stage, code, message: text } = message.refusal;
      this.settle(-1, (request) => request.reject(new WorkerRefusedError(this.id, stage, code, text)));
    } else if (message.ok) {
      this.settle(message.id, (request) => request.resolve(message.result));
    } else {
      const { message: text, code } = message.error;
      this.settle(message.id, (request) => request.reject(new HarnessError(code ?? 'FLOW_WORKER_COMMAND', text)));
    }
  }

  private settle(id: number, action: (request: Pending) => void): void {
    const request = this.pending.get(id);
    this.pending.delete(id);
    if (request) action(request);
  }
}
