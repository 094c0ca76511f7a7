import type { ToxicPipe, ToxicRunner, ToxicType } from './toxic-type.ts';

/** Passes everything through; also what a stage runs when the toxicity draw spares it. */
export function runNoop(pipe: ToxicPipe): ToxicRunner {
  return {
    wake() {
      for (let chunk = pipe.take(); chunk !== undefined; chunk = pipe.take()) {
        if (chunk === null) {
          pipe.close();
          return;
        }
        pipe.emit(chunk.data);
      }
    },
    interrupt: () => true,
  };
}

export const noopToxic: ToxicType = {
  name: 'noop',
  attributes: [],
  run: (_attributes, pipe) => runNoop(pipe),
};
