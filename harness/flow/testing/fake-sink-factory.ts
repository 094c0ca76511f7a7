import type { SinkClassName } from '../../../sinks/index.ts';
import { SinkRegistry } from '../../../sinks/registry.ts';
import type { SinkFactory } from '../runtime/sink-factory.ts';
import { FakeAtLeastOnceSink, FakeAtMostOnceSink, FakeBatchingSink, type FakeFaults } from './fake-sinks.ts';
import { FileTable, type FakeTable } from './fake-table.ts';

/** A factory of fast-tier fakes over one table. */
export function fakeSinkFactory(
  table: FakeTable,
  options: { without?: readonly SinkClassName[]; faults?: FakeFaults } = {},
): SinkFactory {
  const faults = options.faults ?? { failInserts: 0 };
  return {
    registry: SinkRegistry.descriptorsOnly().without(...(options.without ?? [])),
    create(spec, context) {
      switch (spec.sink_class_name) {
        case 'ClickHouseBatchingSink':
        case 'ShardedClickHouseBatchingSink':
          return new FakeBatchingSink(spec, context, table, faults);
        case 'AtLeastOnceClickHouseSink':
          return new FakeAtLeastOnceSink(spec, context, table, faults);
        case 'AtMostOnceClickHouseSink':
          return new FakeAtMostOnceSink(spec, context, table, faults);
      }
    },
  };
}

/**
 * The `SinkFactoryModule` a worker loads in fast-tier supervisor tests: fakes over the JSONL table
 * named by `FLOW_FAKE_TABLE`, failing the first `FLOW_FAKE_FAIL_INSERTS` attempts of each worker.
 */
export function createSinkFactory(options: { readonly without: readonly SinkClassName[] }): SinkFactory {
  const path = process.env.FLOW_FAKE_TABLE;
  if (!path) throw new Error('FLOW_FAKE_TABLE must name the fake table file');
  return fakeSinkFactory(new FileTable(path), {
    without: options.without,
    faults: { failInserts: Number(process.env.FLOW_FAKE_FAIL_INSERTS ?? 0) },
  });
}
