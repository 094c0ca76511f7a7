import { HarnessError } from '../../base/index.ts';
import type { RowValue } from '../../../sinks/index.ts';

/**
 * Columns of every type the seed maps (section 5 of the sink family: integers of each width and
 * sign, Float32/Float64, String, LowCardinality(String), FixedString(N), Bool, Date, DateTime in
 * several zones, Nullable(T)), each with values that stress its encoding: the extremes of its
 * range, zero and minus one, sub-second times given as JS Dates, multibyte and escape-looking
 * strings, nulls. A value is a pure function of a 32-bit draw list, so the source stays
 * replayable. Each stored row is compared with the source's value by value (`expectedStoredRow`
 * here, the stored side's `storedColumnSql`).
 */
export interface TypedColumn {
  readonly name: string;
  /** The column's type in the table. */
  readonly clickhouse: string;
  /** The stream type the sink checks it against. */
  readonly stream: string;
  /** The value of one message, from draws `pick(i)` (32-bit, independent per `i`). */
  readonly value: (pick: (i: number) => number) => RowValue;
  /** The value as the stored side reads it back (`storedColumnSql`), when it differs from the source's. */
  readonly stored?: (value: RowValue) => RowValue;
}

const DAY_MS = 86_400_000;

/** One of `fixed` or, as often as all of them together, `otherwise()`. */
function edgeOr<T>(pick: (i: number) => number, fixed: readonly T[], otherwise: () => T): T {
  const index = pick(0) % (fixed.length * 2);
  return index < fixed.length ? (fixed[index] as T) : otherwise();
}

/** A uniform integer in [min, max] (a range of at most 2^32 values). */
const between = (pick: (i: number) => number, min: number, max: number) => min + (pick(1) % (max - min + 1));

function integer(name: string, type: string, bits: 8 | 16 | 32, signed: boolean): TypedColumn {
  const min = signed ? -(2 ** (bits - 1)) : 0;
  const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  const fixed = signed ? [min, max, 0, -1, 1] : [min, max, 1];
  return {
    name,
    clickhouse: type,
    stream: type.toLowerCase(),
    value: (pick) => edgeOr(pick, fixed, () => between(pick, min, max)),
  };
}

function bigInteger(name: string, signed: boolean): TypedColumn {
  const min = signed ? -(1n << 63n) : 0n;
  const max = signed ? (1n << 63n) - 1n : (1n << 64n) - 1n;
  const fixed = signed ? [min, max, 0n, -1n, 1n << 53n] : [min, max, 1n << 63n, (1n << 53n) + 1n];
  return {
    name,
    clickhouse: signed ? 'Int64' : 'UInt64',
    stream: signed ? 'int64' : 'uint64',
    value: (pick) =>
      edgeOr(pick, fixed, () => {
        const word = (BigInt(pick(1)) << 32n) | BigInt(pick(2));
        return signed ? BigInt.asIntN(64, word) : word;
      }),
  };
}

/** Text a hand-written encoder or a lazy reader gets wrong: escapes, NUL, line breaks, markers of NULL, wide characters. */
const AWKWARD_TEXT: readonly string[] = [
  '',
  '\\N',
  'NULL',
  '\0',
  'a\0b',
  '\r\n',
  "'",
  '`"',
  '\u2028',
  '\uFEFF',
  'é€𝄞',
  '𝄞'.repeat(40),
  ' '.repeat(3),
];
const LETTERS = 'abcdefghijklmnopqrstuvwxyzжé€';

const word = (pick: (i: number) => number, length: number) =>
  Array.from({ length }, (_, i) => LETTERS[pick(3 + i) % LETTERS.length] ?? 'x').join('');

/** Strings of 0..`bytes` UTF-8 bytes (the FixedString's length); shorter ones are padded with NUL on the server. */
function fixedString(name: string, bytes: number): TypedColumn {
  const fits = ['', 'a', 'é', '€', '𝄞', 'a\0b', 'x'.repeat(bytes), `${'x'.repeat(bytes - 4)}𝄞`];
  return {
    name,
    clickhouse: `FixedString(${bytes})`,
    stream: 'string',
    value: (pick) =>
      edgeOr(pick, fits, () => {
        let text = '';
        for (let i = 0; i < bytes; i += 1) {
          const next = text + (LETTERS[pick(3 + i) % LETTERS.length] ?? 'x');
          if (Buffer.byteLength(next) > bytes) break;
          text = next;
        }
        return text.slice(0, between(pick, 0, text.length));
      }),
    stored: (value) => (typeof value === 'string' ? value + '\0'.repeat(bytes - Buffer.byteLength(value)) : value),
  };
}

/**
 * Days since 1970-01-01 in 0..65535, a third of them as a JS Date inside the day (the sink floors
 * it); the last day only as a number, so a Date's fraction never leaves the type's range.
 */
function date(name: string): TypedColumn {
  return {
    name,
    clickhouse: 'Date',
    stream: 'date',
    value: (pick) => {
      const days = edgeOr(pick, [0, 65_535, 19_000], () => between(pick, 0, 65_535));
      return pick(2) % 3 === 0 && days < 65_535 ? new Date(days * DAY_MS + (pick(4) % DAY_MS)) : days;
    },
    stored: (value) => (value instanceof Date ? Math.floor(value.getTime() / DAY_MS) : value),
  };
}

/** Unix seconds in 0..2^32-1, a third of them as a JS Date with milliseconds (the sink floors it); the last second only as a number. */
function dateTime(name: string, zone: string, nullable = false): TypedColumn {
  const type = `DateTime('${zone}')`;
  return {
    name,
    clickhouse: nullable ? `Nullable(${type})` : type,
    stream: nullable ? 'optional<datetime>' : 'datetime',
    value: (pick) => {
      if (nullable && pick(5) % 3 === 0) return null;
      const seconds = edgeOr(pick, [0, 2 ** 32 - 1, 1_700_000_000], () => pick(1));
      return pick(2) % 3 === 0 && seconds < 2 ** 32 - 1 ? new Date(seconds * 1000 + (pick(4) % 1000)) : seconds;
    },
    stored: (value) => (value instanceof Date ? Math.floor(value.getTime() / 1000) : value),
  };
}

/** Float32 values exact in single precision: the stored side reads them widened to Float64. */
const FLOAT32_EDGES: readonly number[] = [
  0, 1.5, -3.25, 16_777_216, -16_777_217, 3.4028234663852886e38, -3.4028234663852886e38, 1.1754943508222875e-38,
  1.401298464324817e-45,
].map(Math.fround);
const FLOAT64_EDGES: readonly number[] = [
  0,
  0.1,
  -2.5e-300,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  2 ** 53 + 2,
  1e21,
];

/** A double from two draws: any sign, exponent and mantissa a finite value can have (no -0). */
function anyDouble(pick: (i: number) => number): number {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt32LE(pick(1), 0);
  bytes.writeUInt32LE(pick(2), 4);
  return finiteOrHalf(bytes.readDoubleLE(0));
}

/** A single-precision value from one draw's bit pattern (no -0). */
function anyFloat32(pick: (i: number) => number): number {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(pick(1), 0);
  return finiteOrHalf(bytes.readFloatLE(0));
}

// NaN, the infinities and -0 have no form the two sides print alike; they stay out.
const finiteOrHalf = (value: number) => (Number.isFinite(value) && !Object.is(value, -0) ? value : 0.5);

/** The seed's type mapping, one column of each type; the source writes every one it is given. */
export const TYPED_COLUMNS: readonly TypedColumn[] = [
  integer('t_int8', 'Int8', 8, true),
  integer('t_int16', 'Int16', 16, true),
  integer('t_int32', 'Int32', 32, true),
  bigInteger('t_int64', true),
  integer('t_uint8', 'UInt8', 8, false),
  integer('t_uint16', 'UInt16', 16, false),
  integer('t_uint32', 'UInt32', 32, false),
  bigInteger('t_uint64', false),
  {
    name: 't_float32',
    clickhouse: 'Float32',
    stream: 'float',
    value: (pick) => edgeOr(pick, FLOAT32_EDGES, () => anyFloat32(pick)),
  },
  {
    name: 't_float64',
    clickhouse: 'Float64',
    stream: 'double',
    value: (pick) => edgeOr(pick, FLOAT64_EDGES, () => anyDouble(pick)),
  },
  { name: 't_bool', clickhouse: 'Bool', stream: 'boolean', value: (pick) => pick(0) % 2 === 0 },
  {
    name: 't_text',
    clickhouse: 'String',
    stream: 'utf8',
    value: (pick) => edgeOr(pick, AWKWARD_TEXT, () => word(pick, pick(1) % 24)),
  },
  {
    name: 't_low_cardinality',
    clickhouse: 'LowCardinality(String)',
    stream: 'string',
    value: (pick) => edgeOr(pick, ['', 'north', 'south-€', '𝄞'], () => word(pick, 1 + (pick(1) % 3))),
  },
  fixedString('t_fixed', 8),
  date('t_date'),
  dateTime('t_datetime_utc', 'UTC'),
  dateTime('t_datetime_kolkata', 'Asia/Kolkata'),
  dateTime('t_datetime_st_johns', 'America/St_Johns'),
  dateTime('t_datetime_moscow_nullable', 'Europe/Moscow', true),
  {
    name: 't_nullable_int32',
    clickhouse: 'Nullable(Int32)',
    stream: 'optional<int32>',
    value: (pick) => (pick(5) % 3 === 0 ? null : edgeOr(pick, [-(2 ** 31), 2 ** 31 - 1, 0], () => pick(1) | 0)),
  },
  {
    name: 't_nullable_text',
    clickhouse: 'Nullable(String)',
    stream: 'optional<string>',
    value: (pick) => (pick(5) % 3 === 0 ? null : edgeOr(pick, AWKWARD_TEXT, () => word(pick, pick(1) % 12))),
  },
];

/** A column of a type the sinks do not write, with a fixed default: allowed because the stream leaves it out. */
export const UNWRITTEN_COLUMN = { name: 't_unwritten_decimal', ddl: 'Decimal(18, 4) DEFAULT 0' } as const;

export const TYPED_COLUMN_NAMES: readonly string[] = TYPED_COLUMNS.map((column) => column.name);

export function typedColumn(name: string): TypedColumn | undefined {
  return TYPED_COLUMNS.find((column) => column.name === name);
}

/** The typed column of that name; a name the catalogue lacks is refused (`sourceConfig` checks them first). */
export function typedColumnNamed(name: string): TypedColumn {
  const typed = typedColumn(name);
  if (typed === undefined) throw new HarnessError('FLOW_SOURCE_INVALID', `no typed column '${name}'`);
  return typed;
}

/**
 * How the stored side reads a column so that its JSON form equals the source value's (`rowForm`):
 * dates as day numbers, times as Unix seconds (the zone is display only), Float32 widened to
 * Float64 (its shortest decimal in single precision is not the same double).
 */
export function storedColumnSql(name: string, clickhouse: string): string {
  const quoted = `\`${name}\``;
  if (/^(Nullable\()?Date\)?$/.test(clickhouse)) return `toInt32(${quoted}) AS ${quoted}`;
  if (/^(Nullable\()?DateTime\b/.test(clickhouse)) return `toUInt32(${quoted}) AS ${quoted}`;
  if (/^(Nullable\()?Float32\)?$/.test(clickhouse)) return `toFloat64(${quoted}) AS ${quoted}`;
  return quoted;
}
