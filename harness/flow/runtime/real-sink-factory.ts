import { createSink, SINK_IMPLEMENTATIONS, type SinkClassName } from '../../../sinks/index.ts';
import type { SinkFactory } from './sink-factory.ts';

/** The workers' default `SinkFactoryModule`: the real sink classes, minus the ones an older binary lacks. */
export function createSinkFactory(options: { readonly without: readonly SinkClassName[] }): SinkFactory {
  const registry = SINK_IMPLEMENTATIONS.without(...options.without);
  return { registry, create: (spec, context) => createSink(spec, context, registry) };
}
