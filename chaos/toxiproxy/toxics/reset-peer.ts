import type { ToxicType } from './toxic-type.ts';

/**
 * After the first chunk (or the end of input) in its direction, waits `timeout` ms, drops the
 * data and closes. Connections opened while a reset_peer toxic exists close with a TCP RST (the
 * real server sets SO_LINGER 0 at connect time); later ones close normally. Idle connections are
 * never touched.
 */
export const resetPeerToxic: ToxicType = {
  name: 'reset_peer',
  attributes: ['timeout'],
  resetsOnClose: true,
  run(attributes, pipe) {
    const timeout = attributes.timeout ?? 0;
    let triggered = false;
    return {
      wake() {
        if (triggered) return;
        const chunk = pipe.take();
        if (chunk === undefined) return;
        triggered = true;
        if (chunk !== null) pipe.drop(chunk.data.length);
        pipe.setTimer(timeout, () => pipe.close());
      },
      // Once triggered the real toxic sleeps without listening for interrupts: the reset happens.
      interrupt: () => !triggered,
    };
  },
};
