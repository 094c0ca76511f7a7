/*
 * What a replica's query_log says of one INSERT: read by the oracle once a run ended, and by the
 * nemesis right before it kills a replica (`LogBeforeKill`), so the history can carry it.
 */

/** What one replica's query_log says of one INSERT of the run's database. */
export interface ServerInsert {
  readonly queryId: string;
  readonly replica: string;
  /** The query finished without an exception: its rows committed, or were dropped as a duplicate. */
  readonly finished: boolean;
  /** ClickHouse dropped a block of it as a duplicate (ProfileEvents DuplicatedInsertedBlocks > 0). */
  readonly deduplicated: boolean;
  /** The `insert_deduplication_token` the server received ('' when none). */
  readonly token: string;
  /**
   * Its part was committed (or found there already) and the server went on to wait for its
   * quorum (ProfileEvents QuorumParts > 0), whatever the answer: a quorum INSERT that fails with
   * UNKNOWN_STATUS_OF_INSERT has its rows in. part_log has no NewPart for such a part (measured
   * on 26.7). Absent in records written before it was read.
   */
  readonly quorumWaited?: boolean;
  /** query_log's `exception_code` of one that failed (0 when it finished); absent in records written before it was read. */
  readonly exceptionCode?: number;
  /**
   * The longest the server waited for the answer to one of this INSERT's own Keeper requests, in
   * ms (`system.zookeeper_log`: its Response rows carry the query id of the request and
   * `duration_microseconds`); 0 when it made none. What a latency on the replica's Keeper links
   * must raise (`keeper-wait`, `properties/checkers/fault-evidence.ts`). query_log's
   * `ProfileEvents['ZooKeeperWaitMicroseconds']` cannot say it: ClickHouse counts it on the Keeper
   * client's receive thread, not on the query. Absent in records written before it was read and
   * on a cluster without a zookeeper_log.
   */
  readonly keeperWaitMs?: number;
  /**
   * The same per Keeper endpoint the replica dialled (`zookeeper_log`'s `address` and `port`,
   * `host:port` with an IPv4 host unwrapped): which link each of its Keeper requests went
   * through, and the longest answer on it. The server's own word that a link carried the INSERT's
   * Keeper traffic, where a proxy's byte counter counts a connection only when it ends (the real
   * Toxiproxy, and a Keeper session outlives every fault). Absent like `keeperWaitMs`.
   */
  readonly keeperWaitsByLink?: Readonly<Record<string, number>>;
  /**
   * The async-insert settings the INSERT ran under, as the server resolved them: query_log's
   * `Settings` holds only what differs from the default (measured on 26.7: an explicit
   * `async_insert=1` is absent, `async_insert=0` present), so an absent one is the server's
   * default from `system.settings`. Absent in records written before it was read.
   */
  readonly asyncSettings?: AsyncInsertSettings;
}

/** The three settings that decide how an INSERT runs asynchronously and whether it is deduplicated then. */
export interface AsyncInsertSettings {
  readonly asyncInsert: boolean;
  readonly waitForAsyncInsert: boolean;
  readonly asyncInsertDeduplicate: boolean;
}
