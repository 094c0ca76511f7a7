import type { Random } from '../random.ts';

/** A piece of the byte stream; `at` is when it reached the current stage (performance.now()). */
export interface Chunk {
  readonly data: Buffer;
  readonly at: number;
}

/**
 * What a running toxic sees of its stage: the stage's input queue, its output, one timer slot
 * and the per-connection state that survives restarts of the stage.
 */
export interface ToxicPipe {
  /** The next chunk, `null` once the input ended (repeatable, never consumed), `undefined` when nothing waits. */
  take(): Chunk | null | undefined;
  emit(data: Buffer): void;
  /** Accounts for bytes the toxic discards, so back-pressure on the source is released. */
  drop(bytes: number): void;
  /** Ends this stage's output: the stages after it, then the destination socket, see end of stream. */
  close(): void;
  /** One timer per stage; setting it again replaces the previous one. Cleared on interrupt. */
  setTimer(ms: number, callback: () => void): void;
  clearTimer(): void;
  readonly random: Random;
  readonly state: unknown;
}

/** One run of a toxic on one stage; a restart (update, neighbour added/removed) makes a new one. */
export interface ToxicRunner {
  /** Input is waiting (a chunk or the end); a runner that is busy ignores it. */
  wake(): void;
  /** Stops at once, emitting whatever it holds. False when the toxic cannot be stopped now. */
  interrupt(): boolean;
}

export type ToxicAttributes = Record<string, number>;

export interface ToxicType {
  readonly name: string;
  /** Attribute names, all integers, 0 by default (Toxiproxy's JSON shape). */
  readonly attributes: readonly string[];
  run(attributes: ToxicAttributes, pipe: ToxicPipe): ToxicRunner;
  /** Per-connection state kept across restarts of the stage (limit_data's byte count). */
  newState?(): unknown;
  /** Removing the toxic closes the connections it sits on (timeout). */
  readonly closesOnRemove?: boolean;
  /** Connections opened while it exists close with a TCP RST (reset_peer). */
  readonly resetsOnClose?: boolean;
}
