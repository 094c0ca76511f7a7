/**
 * The four classes' constructors, their registry and `createSink`, loaded when a process hosts a
 * sink: they bring the whole write path (session, INSERT runner, the ClickHouse client), which
 * the rooms that only name a class, read a spec or judge a run never need at start.
 */
export async function loadSinkClasses() {
  const [{ createSink, SINK_IMPLEMENTATIONS }, { ShardedClickHouseBatchingSink }] = await Promise.all([
    import('./classes/create-sink.ts'),
    import('./classes/batching-sink.ts'),
  ]);
  return { createSink, SINK_IMPLEMENTATIONS, ShardedClickHouseBatchingSink };
}
