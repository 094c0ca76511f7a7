import fc from 'fast-check';
import { arbTiming } from '../../../properties/arbitraries/index.ts';
import type { AimTarget } from '../fault-plan.ts';
import { proxyDown } from '../proxy-fault.ts';
import { bandwidth, latency, limitData, resetPeer, slicer, timeout } from '../toxic-fault.ts';
import { defineFamily } from './family.ts';

/** Faults on the aimed INSERT's own client link (one toxic, or the link taken down), healed when it ended. */
const link = (target: AimTarget) => [target.replica.proxies.client];

/** The INSERT's response is cut as it arrives: the INSERT committed, the sink never hears. */
export const RESET_PEER = defineFamily({
  id: 'reset_peer',
  type: 'reset_peer',
  heals: 'insert-ended',
  expects: 'landed',
  params: {},
  proofs: ['client-link-carried'],
  label: () => "the INSERT's response",
  aim: (t) => resetPeer(link(t)),
});

export const LIMIT_DATA = defineFamily({
  id: 'limit_data',
  type: 'limit_data',
  heals: 'insert-ended',
  expects: 'landed',
  params: { bytes: 'number' },
  proofs: ['client-link-carried'],
  arbParams: () => arbTiming({ min: 1, max: 60 }).map((bytes) => ({ bytes })),
  label: ({ bytes }) => `the INSERT's response after ${bytes}B`,
  aim: (t, { bytes }) => limitData(link(t), bytes),
});

export const RESPONSE_TIMEOUT = defineFamily({
  id: 'response_timeout',
  type: 'timeout',
  heals: 'insert-ended',
  expects: 'landed',
  params: { ms: 'number' },
  proofs: ['client-link-carried'],
  arbParams: () => arbTiming({ min: 200, max: 1500 }).map((ms) => ({ ms })),
  label: ({ ms }) => `the INSERT's response, ${ms}ms`,
  aim: (t, { ms }) => timeout(link(t), ms),
});

/** The INSERT's request is swallowed, then the connection closes: nothing reached the server. */
export const REQUEST_TIMEOUT = defineFamily({
  id: 'request_timeout',
  type: 'timeout',
  heals: 'insert-ended',
  expects: 'absent',
  params: { ms: 'number' },
  proofs: ['client-link-carried'],
  label: ({ ms }) => `the INSERT's request, ${ms}ms`,
  aim: (t, { ms }) => timeout(link(t), ms, 'upstream'),
});

export const LATENCY = defineFamily({
  id: 'latency',
  type: 'latency',
  heals: 'insert-ended',
  params: { ms: 'number', jitter: 'number' },
  proofs: ['client-link-carried'],
  /**
   * At least 150 ms after jitter: the evidence that it fired is that the INSERT it was aimed at
   * took at least latency - jitter, which an unfaulted INSERT here (15-65 ms) never does.
   */
  arbParams: () =>
    fc
      .record({ ms: arbTiming({ min: 200, max: 800 }), jitter: arbTiming({ min: 0, max: 50 }) })
      .map(({ ms, jitter }) => ({ ms, jitter })),
  label: ({ ms, jitter }) => `the INSERT's link, ${ms}ms±${jitter}`,
  aim: (t, { ms, jitter }) => latency(link(t), ms, jitter),
});

export const BANDWIDTH = defineFamily({
  id: 'bandwidth',
  type: 'bandwidth',
  heals: 'insert-ended',
  params: { rate: 'number' },
  proofs: ['client-link-carried'],
  arbParams: () => arbTiming({ min: 2, max: 3 }).map((rate) => ({ rate })),
  label: ({ rate }) => `the INSERT's link, ${rate}KB/s`,
  aim: (t, { rate }) => bandwidth(link(t), rate),
});

export const SLICER = defineFamily({
  id: 'slicer',
  type: 'slicer',
  heals: 'insert-ended',
  params: { size: 'number', delayUs: 'number' },
  proofs: ['client-link-carried'],
  arbParams: () => arbTiming({ min: 2, max: 16 }).map((size) => ({ size, delayUs: size * 500 })),
  label: ({ size, delayUs }) => `the INSERT's link, ${size}B/${delayUs}us`,
  aim: (t, { size, delayUs }) => slicer(link(t), size, delayUs),
});

export const PROXY_DOWN = defineFamily({
  id: 'proxy_down',
  type: 'proxy_down',
  heals: 'insert-ended',
  params: {},
  proofs: ['failed-at-link'],
  label: () => "the INSERT's link",
  aim: (t) => proxyDown(link(t)),
});
