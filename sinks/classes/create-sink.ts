import { SinkError } from '../errors.ts';
import type { AnySink, SinkContext } from '../api.ts';
import { SinkRegistry } from '../registry.ts';
import { SINK_CLASSES } from '../sink-classes.ts';
import type { SinkSpec } from '../spec/sink-spec.ts';
import { AtLeastOnceClickHouseSink } from './at-least-once-sink.ts';
import { AtMostOnceClickHouseSink } from './at-most-once-sink.ts';
import { ClickHouseBatchingSink, ShardedClickHouseBatchingSink } from './batching-sink.ts';

export type SinkConstructor = new (spec: SinkSpec, context: SinkContext) => AnySink;

/** The four classes with their constructors: what a binary of this version knows. */
export const SINK_IMPLEMENTATIONS: SinkRegistry<SinkConstructor> = SinkRegistry.of<SinkConstructor>([
  { descriptor: SINK_CLASSES.ClickHouseBatchingSink, implementation: ClickHouseBatchingSink },
  { descriptor: SINK_CLASSES.ShardedClickHouseBatchingSink, implementation: ShardedClickHouseBatchingSink },
  { descriptor: SINK_CLASSES.AtLeastOnceClickHouseSink, implementation: AtLeastOnceClickHouseSink },
  { descriptor: SINK_CLASSES.AtMostOnceClickHouseSink, implementation: AtMostOnceClickHouseSink },
]);

/**
 * A new sink instance for a validated spec (`parseSinkSpec` with the same registry). Nothing
 * connects yet: the write session opens on the first write, or in `init` for the batching
 * classes. Narrow the result on `kind`.
 */
export function createSink(
  spec: SinkSpec,
  context: SinkContext,
  registry: SinkRegistry<SinkConstructor> = SINK_IMPLEMENTATIONS,
): AnySink {
  const entry = registry.get(spec.sink_class_name);
  if (!entry) {
    throw new SinkError(
      'SINK_CLASS_NOT_REGISTERED',
      `${spec.sink_class_name} is not registered in this binary (known: ${registry.names.join(', ')}); the spec of sink '${spec.name}' is refused before any state is read`,
    );
  }
  return new entry.implementation(spec, context);
}
