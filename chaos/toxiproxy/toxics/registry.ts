import { bandwidthToxic } from './bandwidth.ts';
import { latencyToxic } from './latency.ts';
import { limitDataToxic } from './limit-data.ts';
import { noopToxic } from './noop.ts';
import { resetPeerToxic } from './reset-peer.ts';
import { slicerToxic } from './slicer.ts';
import { slowCloseToxic } from './slow-close.ts';
import { timeoutToxic } from './timeout.ts';
import type { ToxicType } from './toxic-type.ts';

/** Every toxic type the API accepts, by its Toxiproxy name. */
export const toxicTypes: ReadonlyMap<string, ToxicType> = new Map(
  [
    noopToxic,
    latencyToxic,
    bandwidthToxic,
    slowCloseToxic,
    timeoutToxic,
    resetPeerToxic,
    slicerToxic,
    limitDataToxic,
  ].map((type) => [type.name, type]),
);
