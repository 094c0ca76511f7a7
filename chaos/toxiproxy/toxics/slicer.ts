import { performance } from 'node:perf_hooks';
import type { Random } from '../random.ts';
import type { ToxicType } from './toxic-type.ts';

/**
 * Cut points that split `size` bytes into pieces of about `average` ± `variation` bytes by
 * halving with a random offset, so no piece size is favoured at either end of the chunk.
 */
export function slicePoints(size: number, average: number, variation: number, random: Random): number[] {
  const ends: number[] = [];
  const cut = (start: number, end: number): void => {
    const length = end - start;
    if (length - average <= variation || length <= 1) {
      ends.push(end);
      return;
    }
    const offset = variation > 0 ? random.int(variation * 2) - variation : 0;
    const middle = Math.min(end - 1, Math.max(start + 1, start + Math.floor(length / 2) + offset));
    cut(start, middle);
    cut(middle, end);
  };
  if (size > 0) cut(0, size);
  return ends;
}

/**
 * Splits chunks into pieces of about `average_size` ± `size_variation` bytes and waits `delay`
 * microseconds after each piece. Sub-millisecond delays are kept on average: pieces that are due
 * go out together instead of one per timer tick.
 */
export const slicerToxic: ToxicType = {
  name: 'slicer',
  attributes: ['average_size', 'size_variation', 'delay'],
  run(attributes, pipe) {
    const average = Math.max(0, attributes.average_size ?? 0);
    const variation = Math.max(0, attributes.size_variation ?? 0);
    const delayMs = Math.max(0, attributes.delay ?? 0) / 1000;
    let data: Buffer | undefined;
    let ends: number[] = [];
    let next = 0;
    let offset = 0;
    let due = 0;

    const pump = (): void => {
      for (;;) {
        if (data === undefined) {
          const chunk = pipe.take();
          if (chunk === undefined) return;
          if (chunk === null) {
            pipe.close();
            return;
          }
          data = chunk.data;
          ends = slicePoints(data.length, average, variation, pipe.random);
          next = 0;
          offset = 0;
          due = Math.max(due, performance.now());
        }
        const now = performance.now();
        if (now < due) {
          pipe.setTimer(due - now, pump);
          return;
        }
        const end = ends[next] ?? data.length;
        pipe.emit(data.subarray(offset, end));
        offset = end;
        next += 1;
        due += delayMs;
        if (next >= ends.length) data = undefined;
      }
    };

    return {
      wake() {
        if (data === undefined) pump();
      },
      interrupt() {
        if (data !== undefined && offset < data.length) pipe.emit(data.subarray(offset));
        data = undefined;
        return true;
      },
    };
  },
};
