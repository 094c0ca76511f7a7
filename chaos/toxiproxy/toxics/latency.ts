import { performance } from 'node:perf_hooks';
import type { Chunk, ToxicType } from './toxic-type.ts';

/**
 * Delays each chunk by `latency` ± uniform `jitter` ms counted from when the chunk reached this
 * stage, so delays do not add up along a stream; chunks leave in order.
 */
export const latencyToxic: ToxicType = {
  name: 'latency',
  attributes: ['latency', 'jitter'],
  run(attributes, pipe) {
    const latency = attributes.latency ?? 0;
    const jitter = attributes.jitter ?? 0;
    let held: Chunk | undefined;
    let due = 0;

    const delayFor = (): number => (jitter > 0 ? latency + pipe.random.int(jitter * 2) - jitter : latency);
    // Node's timers run on whole milliseconds of a loop clock cached per tick, so they can fire
    // up to a millisecond or two early; a latency toxic must never deliver early.
    const release = (): void => {
      const early = due - performance.now();
      if (early > 0) {
        pipe.setTimer(Math.ceil(early), release);
        return;
      }
      const chunk = held;
      held = undefined;
      if (chunk) pipe.emit(chunk.data);
      pump();
    };
    const pump = (): void => {
      while (held === undefined) {
        const chunk = pipe.take();
        if (chunk === undefined) return;
        if (chunk === null) {
          pipe.close();
          return;
        }
        due = chunk.at + delayFor();
        const wait = due - performance.now();
        if (wait <= 0) {
          pipe.emit(chunk.data);
        } else {
          held = chunk;
          pipe.setTimer(Math.ceil(wait), release);
        }
      }
    };

    return {
      wake: pump,
      interrupt() {
        // Toxiproxy never drops data on an interrupt: the held chunk goes out undelayed.
        if (held) pipe.emit(held.data);
        held = undefined;
        return true;
      },
    };
  },
};
