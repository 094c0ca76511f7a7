/**
 * A `SinkFactoryModule` for sink workers that hosts a mutant (`CHAOS_MUTANT`) around the real
 * sinks. Only the chaos self-tests point workers at it.
 */
import { HarnessError } from '../../harness/base/index.ts';
import { createSinkFactory as createRealSinkFactory, type SinkFactory } from '../../harness/flow/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';
import { isWrapperMutantName, mutate, suffixDroppedShardedSink } from './mutants.ts';

export async function createSinkFactory(options: { readonly without: readonly SinkClassName[] }): Promise<SinkFactory> {
  const name = process.env.CHAOS_MUTANT ?? '';
  if (!isWrapperMutantName(name))
    throw new HarnessError(
      'CHAOS_MUTANT_UNKNOWN',
      `CHAOS_MUTANT='${name}' names no mutant (see chaos/mutants/mutants.ts)`,
    );
  const real = await createRealSinkFactory(options);
  const SuffixDroppedShardedSink = await suffixDroppedShardedSink();
  return {
    registry: real.registry,
    create: async (spec, context) =>
      name === 'shard-suffix-dropped' && spec.sink_class_name === 'ShardedClickHouseBatchingSink'
        ? new SuffixDroppedShardedSink(spec, context)
        : mutate(await real.create(spec, context), name),
  };
}
