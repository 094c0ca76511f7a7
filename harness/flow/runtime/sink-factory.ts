import type { AnySink, SinkClassName, SinkContext, SinkRegistry, SinkSpec } from '../../../sinks/index.ts';

/**
 * How the runtime gets sinks: the registry (a spec naming a class outside it is refused before
 * any state is read) and a constructor per partition. The real sinks and the fast-tier fakes
 * both come through this, so the runtime never knows which it hosts.
 */
export interface SinkFactory {
  readonly registry: SinkRegistry<unknown>;
  create(spec: SinkSpec, context: SinkContext): AnySink | Promise<AnySink>;
}

/** A module a worker loads its factory from: real sinks by default, fakes in fast-tier tests. */
export interface SinkFactoryModule {
  createSinkFactory(options: { readonly without: readonly SinkClassName[] }): SinkFactory | Promise<SinkFactory>;
}
