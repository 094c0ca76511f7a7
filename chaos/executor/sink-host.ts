import type { SupervisorOptions } from '../../harness/flow/index.ts';

/** How a scenario's sink workers are hosted: from which source tree, with which sink factory and environment. */
export type WorkerHosting = Pick<SupervisorOptions, 'factoryModule' | 'env' | 'workerRoot'>;

/**
 * Made once per scenario, in its directory, by whoever runs it: the chaos job hosts the real
 * sinks; the mutants' self-test hosts a broken one (a wrapping factory, or a mutated copy of the
 * worker tree). The executor knows nothing of mutants.
 */
export type SinkHost = (scenarioDir: string) => WorkerHosting;

/** The real sinks from this repository. */
export const REAL_SINK_HOST: SinkHost = () => ({});
