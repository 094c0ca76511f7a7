import { performance } from 'node:perf_hooks';
import type { Random } from './random.ts';
import { runNoop } from './toxics/noop.ts';
import type { Chunk, ToxicPipe, ToxicRunner } from './toxics/toxic-type.ts';
import type { Toxic } from './toxic.ts';

/** Where a stage sends its output: the next stage, or the link's destination. */
export interface StageOutput {
  push(data: Buffer): void;
  end(): void;
}

export interface StageContext {
  /** Decides whether this run is toxic or a noop (Toxiproxy draws per stage run). */
  readonly toxicity: Random;
  /** For the toxics' own randomness (jitter, slice sizes), kept apart from the toxicity draws. */
  readonly shaping: Random;
  /** Bytes that left the link without reaching the destination. */
  dropped(bytes: number): void;
}

/**
 * One toxic of one direction of one connection: an input queue, the toxic (or a noop) running
 * on it, and the per-connection state that survives restarts. Stage 0 of every link is a hidden
 * noop, so that a toxic added at the end always has a stage before it to pause.
 */
export class Stage implements ToxicPipe {
  readonly toxic: Toxic | undefined;
  readonly state: unknown;
  output: StageOutput;
  private queue: Chunk[] = [];
  private head = 0;
  private ended = false;
  private closed = false;
  private runner: ToxicRunner | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly context: StageContext;

  constructor(toxic: Toxic | undefined, output: StageOutput, context: StageContext) {
    this.toxic = toxic;
    this.output = output;
    this.context = context;
    this.state = toxic?.type.newState?.();
  }

  get random(): Random {
    return this.context.shaping;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Starts a run of the toxic, drawing its toxicity afresh. */
  start(): void {
    if (this.closed) return;
    const toxic = this.toxic;
    const poisoned = toxic !== undefined && this.context.toxicity.next() < toxic.toxicity;
    this.runner = poisoned ? toxic.type.run({ ...toxic.attributes }, this) : runNoop(this);
    this.runner.wake();
  }

  /** Stops the current run; false when the stage is closed or its toxic cannot stop now. */
  interrupt(): boolean {
    if (this.closed) return false;
    if (this.runner && !this.runner.interrupt()) return false;
    this.runner = undefined;
    this.clearTimer();
    return true;
  }

  push(data: Buffer): void {
    if (this.closed) {
      this.context.dropped(data.length);
      return;
    }
    this.queue.push({ data, at: performance.now() });
    this.runner?.wake();
  }

  end(): void {
    if (this.closed || this.ended) return;
    this.ended = true;
    this.runner?.wake();
  }

  /** Hands everything still queued (and the end, if seen) to `target`; used when this stage is removed. */
  flushTo(target: StageOutput): void {
    const pending = this.queue;
    const from = this.head;
    this.queue = [];
    this.head = 0;
    for (let i = from; i < pending.length; i += 1) target.push((pending[i] as Chunk).data);
    if (this.ended) target.end();
  }

  take(): Chunk | null | undefined {
    if (this.closed) return undefined;
    if (this.head < this.queue.length) {
      const chunk = this.queue[this.head] as Chunk;
      this.head += 1;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return chunk;
    }
    return this.ended ? null : undefined;
  }

  emit(data: Buffer): void {
    this.output.push(data);
  }

  drop(bytes: number): void {
    this.context.dropped(bytes);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimer();
    this.runner = undefined;
    let discarded = 0;
    for (let i = this.head; i < this.queue.length; i += 1) discarded += (this.queue[i] as Chunk).data.length;
    this.queue = [];
    this.head = 0;
    if (discarded > 0) this.context.dropped(discarded);
    this.output.end();
  }

  setTimer(ms: number, callback: () => void): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      callback();
    }, ms);
  }

  clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The connection is gone: stop everything without emitting. */
  dispose(): void {
    this.closed = true;
    this.runner = undefined;
    this.clearTimer();
    this.queue = [];
    this.head = 0;
  }
}
