/**
 * Test support of `harness/flow/`. The fakes are for the fast tier only: they prove the runtime's
 * bookkeeping, never a delivery guarantee (that takes the real sinks on a real cluster).
 */
export { fakeSinkFactory, createSinkFactory as createFakeSinkFactory } from './fake-sink-factory.ts';
export { FakeAtLeastOnceSink, FakeAtMostOnceSink, FakeBatchingSink, type FakeFaults } from './fake-sinks.ts';
export { countIds, FileTable, MemoryTable, type FakeInsert, type FakeTable } from './fake-table.ts';
export { freezingCrash, MemoryHistory } from './memory-history.ts';
export { DATABASE, exactlyOnceDiff, FlowTestCluster, rendezvousShard, SPEC_PORT, type ReplicaCounts } from './flow-cluster.ts';

/** The fake factory as a worker loads it (`FlowSupervisor({ factoryModule })`), with `FLOW_FAKE_TABLE` set. */
export const FAKE_FACTORY_MODULE = 'harness/flow/testing/fake-sink-factory.ts';
