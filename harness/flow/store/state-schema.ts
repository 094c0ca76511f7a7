/**
 * The state file's layout. Everything is keyed by the sink NAME (the state prefix of the
 * original), never by its class, so a class switch that keeps the name keeps input progress, the
 * outbox and the fingerprints — the seed's host → shard_hosts migration depends on that.
 */

/** `PRAGMA application_id`: "FLOW" in ASCII. A file without it is not ours and is never touched. */
export const APPLICATION_ID = 0x464c4f57;
/** `PRAGMA user_version`; bump with a migration when the tables below change. */
export const SCHEMA_VERSION = 2;
export const PRODUCT = 'clickhouse-sink-chaos/flow-state';

export const SCHEMA_DDL = `
CREATE TABLE flow_identity (
  singleton      INTEGER PRIMARY KEY CHECK (singleton = 1),
  product        TEXT    NOT NULL,
  schema_version INTEGER NOT NULL,
  created_at     TEXT    NOT NULL
);
CREATE TABLE partition_progress (
  sink        TEXT    NOT NULL,
  partition   INTEGER NOT NULL,
  next_seq    INTEGER NOT NULL,
  epoch       INTEGER NOT NULL,
  next_batch  INTEGER NOT NULL,
  sink_class  TEXT    NOT NULL,
  updated_at  REAL    NOT NULL,
  PRIMARY KEY (sink, partition)
) WITHOUT ROWID;
CREATE TABLE outbox (
  sink          TEXT    NOT NULL,
  partition     INTEGER NOT NULL,
  batch         INTEGER NOT NULL,
  token         TEXT    NOT NULL,
  epoch         INTEGER NOT NULL,
  message_count INTEGER NOT NULL,
  byte_size     INTEGER NOT NULL,
  messages      TEXT    NOT NULL,
  delivered     INTEGER NOT NULL DEFAULT 0 CHECK (delivered IN (0, 1)),
  delivered_at  REAL,
  PRIMARY KEY (sink, partition, batch)
);
CREATE INDEX outbox_undelivered ON outbox (sink, partition, delivered, batch);
-- At-most-once ordered mode (the seed's output_messages): an epoch's messages, committed with
-- it, each deleted right before the INSERT that carries it may start.
CREATE TABLE output_messages (
  sink      TEXT    NOT NULL,
  partition INTEGER NOT NULL,
  seq       INTEGER NOT NULL,
  epoch     INTEGER NOT NULL,
  message   TEXT    NOT NULL,
  PRIMARY KEY (sink, partition, seq)
) WITHOUT ROWID;
CREATE TABLE fingerprints (
  sink       TEXT    NOT NULL,
  partition  INTEGER NOT NULL,
  routing    TEXT    NOT NULL,
  targets    TEXT    NOT NULL,
  updated_at REAL    NOT NULL,
  PRIMARY KEY (sink, partition)
) WITHOUT ROWID;
`;
