import type { ToxicType } from './toxic-type.ts';

/** Data passes untouched; the end of the stream is held back for `delay` ms. */
export const slowCloseToxic: ToxicType = {
  name: 'slow_close',
  attributes: ['delay'],
  run(attributes, pipe) {
    const delay = attributes.delay ?? 0;
    let closing = false;
    return {
      wake() {
        if (closing) return;
        for (let chunk = pipe.take(); chunk !== undefined; chunk = pipe.take()) {
          if (chunk === null) {
            closing = true;
            pipe.setTimer(delay, () => pipe.close());
            return;
          }
          pipe.emit(chunk.data);
        }
      },
      // The end of input stays queued, so whichever run follows sees it again.
      interrupt: () => true,
    };
  },
};
