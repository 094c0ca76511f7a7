import type { Fault } from '../../chaos/nemeses/fault.ts';

/** What the commands know of the system: enough to decide which command makes sense next. */
export interface ChaosModel {
  readonly activeFaults: Fault[];
  epochs: number;
  crashes: number;
}

export const newModel = (): ChaosModel => ({ activeFaults: [], epochs: 0, crashes: 0 });

/** Two faults on one target at once would make the heal order matter; keep them apart. */
export function targetsFree(model: ChaosModel, fault: Fault): boolean {
  return !model.activeFaults.some((active) => active.targets.some((target) => fault.targets.includes(target)));
}
