/** What the commands know of the system: counts that make a schedule readable and shrinkable. */
export interface ChaosModel {
  epochs: number;
  faults: number;
  crashes: number;
  reconfigurations: number;
}

export const newModel = (): ChaosModel => ({ epochs: 0, faults: 0, crashes: 0, reconfigurations: 0 });
