import type { ToxicAttributes, ToxicType } from './toxics/toxic-type.ts';

export type Direction = 'upstream' | 'downstream';

/** A toxic as the API knows it. Updates change `toxicity` and `attributes` in place. */
export interface Toxic {
  readonly name: string;
  readonly type: ToxicType;
  /** As the client wrote it (Toxiproxy echoes the original spelling). */
  readonly stream: string;
  readonly direction: Direction;
  toxicity: number;
  attributes: ToxicAttributes;
}

/** Toxiproxy's JSON for a toxic, keys in the real server's order. */
export function toxicJson(toxic: Toxic): Record<string, unknown> {
  const attributes: Record<string, number> = {};
  for (const key of toxic.type.attributes) attributes[key] = toxic.attributes[key] ?? 0;
  return {
    attributes,
    name: toxic.name,
    type: toxic.type.name,
    stream: toxic.stream,
    toxicity: toxic.toxicity,
  };
}
