import { loadSinkClasses, type SinkClassName } from '../../../sinks/index.ts';
import type { SinkFactory } from './sink-factory.ts';

/** The workers' default `SinkFactoryModule`: the real sink classes, minus the ones an older binary lacks. */
export async function createSinkFactory(options: { readonly without: readonly SinkClassName[] }): Promise<SinkFactory> {
  const { createSink, SINK_IMPLEMENTATIONS } = await loadSinkClasses();
  const registry = SINK_IMPLEMENTATIONS.without(...options.without);
  return { registry, create: (spec, context) => createSink(spec, context, registry) };
}
