import { apiErrors } from './api-error.ts';
import type { Direction, Toxic } from './toxic.ts';
import { toxicTypes } from './toxics/registry.ts';
import type { ToxicAttributes, ToxicType } from './toxics/toxic-type.ts';

/** The JSON body must be an object; anything else is a 400 like Go's decoder reports it. */
export function expectObject(body: unknown, what: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw apiErrors.badRequestBody(`cannot unmarshal ${describe(body)} into ${what}`);
  }
  return body as Record<string, unknown>;
}

/** A field of a given JSON type; absent or null keeps the default (Go's decoder does the same). */
export function field<T>(
  body: Record<string, unknown>,
  key: string,
  type: 'string' | 'number' | 'boolean',
  fallback: T,
): T {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== type)
    throw apiErrors.badRequestBody(`cannot unmarshal ${describe(value)} into field ${key} of type ${type}`);
  return value as T;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function parseDirection(stream: string): Direction {
  const lower = stream.toLowerCase();
  if (lower === 'upstream' || lower === 'downstream') return lower;
  throw apiErrors.invalidStream();
}

/** Merges integer attributes of `type` from `raw` over `base`; unknown keys are ignored. */
function parseAttributes(type: ToxicType, raw: unknown, base: ToxicAttributes): ToxicAttributes {
  const attributes: ToxicAttributes = { ...base };
  if (raw === undefined || raw === null) return attributes;
  const body = expectObject(raw, `attributes of toxic type ${type.name}`);
  for (const key of type.attributes) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw apiErrors.badRequestBody(`cannot unmarshal ${JSON.stringify(value)} into attribute ${key} (an integer)`);
    }
    attributes[key] = value;
  }
  return attributes;
}

/**
 * A new toxic from a POST body, checked in the real server's order: body, stream, default name,
 * type, name conflict (409), attributes.
 */
export function parseNewToxic(raw: unknown, nameTaken: (name: string) => boolean): Toxic {
  const body = expectObject(raw, 'toxic');
  const stream = field(body, 'stream', 'string', 'downstream');
  const toxicity = field(body, 'toxicity', 'number', 1);
  const typeName = field(body, 'type', 'string', '');
  const direction = parseDirection(stream);
  const name = field(body, 'name', 'string', '') || `${typeName}_${stream}`;
  const type = toxicTypes.get(typeName);
  if (type === undefined) throw apiErrors.invalidToxicType();
  if (nameTaken(name)) throw apiErrors.toxicAlreadyExists();
  const zero = Object.fromEntries(type.attributes.map((key) => [key, 0]));
  return { name, type, stream, direction, toxicity, attributes: parseAttributes(type, body.attributes, zero) };
}

/** An update body: only `attributes` (merged) and `toxicity` (kept if absent) are read. */
export function parseToxicUpdate(raw: unknown, toxic: Toxic): { toxicity: number; attributes: ToxicAttributes } {
  const body = expectObject(raw, 'toxic');
  return {
    toxicity: field(body, 'toxicity', 'number', toxic.toxicity),
    attributes: parseAttributes(toxic.type, body.attributes, toxic.attributes),
  };
}
