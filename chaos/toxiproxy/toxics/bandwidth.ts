import { performance } from 'node:perf_hooks';
import type { ToxicType } from './toxic-type.ts';

const SLICE_MS = 100;

/**
 * Paces the stream to `rate` KB/s (KB = 1000 B). A chunk larger than what 100 ms allows goes out
 * in slices every 100 ms; a small chunk waits for the debt its bytes add. Rate 0 passes nothing.
 */
export const bandwidthToxic: ToxicType = {
  name: 'bandwidth',
  attributes: ['rate'],
  run(attributes, pipe) {
    const rate = attributes.rate ?? 0;
    const slice = rate * SLICE_MS;
    // Milliseconds owed for bytes already let through; carried across chunks like Toxiproxy does.
    let debt = 0;
    let rest: Buffer | undefined;

    // Returns true when the chunk went out at once and the next one may be taken.
    const step = (): boolean => {
      const data = rest;
      if (data === undefined) return true;
      if (rate <= 0) return false; // holds the chunk until the toxic is interrupted
      if (data.length > slice) {
        pipe.setTimer(SLICE_MS, () => {
          rest = data.subarray(slice);
          pipe.emit(data.subarray(0, slice));
          debt -= SLICE_MS;
          if (step()) pump();
        });
        return false;
      }
      if (debt <= 0) {
        rest = undefined;
        pipe.emit(data);
        return true;
      }
      const started = performance.now();
      pipe.setTimer(debt, () => {
        // Timers fire late; counting the real wait gives the overshoot back as credit.
        debt -= performance.now() - started;
        rest = undefined;
        pipe.emit(data);
        pump();
      });
      return false;
    };
    const pump = (): void => {
      while (rest === undefined) {
        const chunk = pipe.take();
        if (chunk === undefined) return;
        if (chunk === null) {
          pipe.close();
          return;
        }
        if (rate > 0) debt += chunk.data.length / rate;
        rest = chunk.data;
        if (!step()) return;
      }
    };

    return {
      wake: pump,
      interrupt() {
        if (rest !== undefined && rest.length > 0) pipe.emit(rest);
        rest = undefined;
        return true;
      },
    };
  },
};
