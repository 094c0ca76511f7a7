import type { ToxicType } from './toxic-type.ts';

/**
 * Swallows every byte in its direction. With `timeout` > 0 the connection closes that many ms
 * after the last chunk (or after the toxic started); 0 never closes by itself. Removing it closes
 * the connections it sits on, as the real server does.
 */
export const timeoutToxic: ToxicType = {
  name: 'timeout',
  attributes: ['timeout'],
  closesOnRemove: true,
  run(attributes, pipe) {
    const timeout = attributes.timeout ?? 0;
    const arm = (): void => {
      if (timeout > 0) pipe.setTimer(timeout, () => pipe.close());
    };
    arm();
    return {
      wake() {
        for (let chunk = pipe.take(); chunk !== undefined; chunk = pipe.take()) {
          if (chunk === null) {
            pipe.close();
            return;
          }
          pipe.drop(chunk.data.length);
          arm();
        }
      },
      interrupt: () => true,
    };
  },
};
