import { cppClassName, SINK_CLASS_NAMES, type SinkClassName } from '../domain/sink-class-name.ts';
import type { SinkRegistry } from '../registry.ts';
import { suggestion } from './closest-name.ts';
import type { SpecProblems } from './spec-problem.ts';

const ALIASES: ReadonlyMap<string, SinkClassName> = new Map(
  SINK_CLASS_NAMES.flatMap((name) => [name, `T${name}`, cppClassName(name)].map((alias) => [alias, name] as const)),
);

const SYNC_NAMES = new Set(['SyncClickHouseSink', 'TSyncClickHouseSink', 'NYT::NFlow::TSyncClickHouseSink']);

/**
 * Maps a written class name (`NYT::NFlow::TClickHouseBatchingSink`, `TClickHouseBatchingSink` or
 * `ClickHouseBatchingSink`) to its canonical name, or records why it is refused: the synchronous
 * exactly-once sink that does not exist, an unknown name, or a class this binary's registry lacks.
 */
export function resolveSinkClassName(
  written: unknown,
  registry: SinkRegistry<unknown>,
  problems: SpecProblems,
): SinkClassName | undefined {
  const path = 'sink_class_name';
  if (typeof written !== 'string' || written === '') {
    problems.add(
      'class-unknown',
      path,
      `is required: one of ${SINK_CLASS_NAMES.map(cppClassName).join(', ')}`,
      'SINK_CLASS_UNKNOWN',
    );
    return undefined;
  }
  if (SYNC_NAMES.has(written)) {
    problems.add(
      'class-sync',
      path,
      `'${written}' does not exist: there is no synchronous exactly-once ClickHouse sink, because ClickHouse takes no part in the stream processor's table transaction, so exactly-once must go through an asynchronous transactional outbox. Use NYT::NFlow::TClickHouseBatchingSink (host or hosts) or NYT::NFlow::TShardedClickHouseBatchingSink (shard_hosts) for exactly-once, or NYT::NFlow::TAtLeastOnceClickHouseSink to write synchronously without exactly-once`,
      'SINK_CLASS_SYNC_UNSUPPORTED',
    );
    return undefined;
  }
  const name = ALIASES.get(written);
  if (name === undefined) {
    problems.add(
      'class-unknown',
      path,
      `'${written}' is not a ClickHouse sink class${suggestion(written, [...ALIASES.keys()])}; known classes: ${SINK_CLASS_NAMES.map(cppClassName).join(', ')}`,
      'SINK_CLASS_UNKNOWN',
    );
    return undefined;
  }
  if (!registry.has(name)) {
    problems.add(
      'class-not-registered',
      path,
      `'${written}' is not in this binary's sink registry (registered: ${registry.names.join(', ') || 'none'}); the spec is refused before any sink state is read. Run a binary that registers ${cppClassName(name)}, or restore the spec that this binary ran before`,
      'SINK_CLASS_NOT_REGISTERED',
    );
    return undefined;
  }
  return name;
}
