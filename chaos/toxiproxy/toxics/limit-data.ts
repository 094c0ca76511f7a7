import type { ToxicType } from './toxic-type.ts';

interface LimitDataState {
  transmitted: number;
}

/**
 * Forwards at most `bytes` per connection and direction, cutting the chunk that crosses the
 * limit, then closes. The count lives in the stage state, so it survives restarts of the toxic.
 * The close only happens when a chunk arrives.
 */
export const limitDataToxic: ToxicType = {
  name: 'limit_data',
  attributes: ['bytes'],
  newState: (): LimitDataState => ({ transmitted: 0 }),
  run(attributes, pipe) {
    const limit = attributes.bytes ?? 0;
    const state = pipe.state as LimitDataState;
    return {
      wake() {
        for (let chunk = pipe.take(); chunk !== undefined; chunk = pipe.take()) {
          if (chunk === null) {
            pipe.close();
            return;
          }
          const remaining = Math.max(0, limit - state.transmitted);
          const passed = Math.min(remaining, chunk.data.length);
          if (passed > 0) {
            pipe.emit(passed === chunk.data.length ? chunk.data : chunk.data.subarray(0, passed));
            state.transmitted += passed;
          }
          if (passed < chunk.data.length) pipe.drop(chunk.data.length - passed);
          if (limit - state.transmitted <= 0) {
            pipe.close();
            return;
          }
        }
      },
      interrupt: () => true,
    };
  },
};
