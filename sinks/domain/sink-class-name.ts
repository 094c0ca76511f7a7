/**
 * The canonical (short) names of the sink classes. Specs may also use the C++ names
 * (`NYT::NFlow::T<name>` or `T<name>`); spec validation maps them onto these.
 */
export const SINK_CLASS_NAMES = [
  'ClickHouseBatchingSink',
  'ShardedClickHouseBatchingSink',
  'AtLeastOnceClickHouseSink',
  'AtMostOnceClickHouseSink',
] as const;

export type SinkClassName = (typeof SINK_CLASS_NAMES)[number];

/** `NYT::NFlow::TClickHouseBatchingSink` for `ClickHouseBatchingSink`. */
export function cppClassName(name: SinkClassName): string {
  return `NYT::NFlow::T${name}`;
}

export function isSinkClassName(text: string): text is SinkClassName {
  return (SINK_CLASS_NAMES as readonly string[]).includes(text);
}
