// Versioned schema of the ClickHouse event store, applied in order on every listed node by
// ClickHouseEventStore.migrate(). Never edit a released step: add the next one (a new
// statistic in the catalog needs a step that recreates the row view, then a rebuild).
//
// Per node (each a shard; nothing here needs ZooKeeper/Keeper):
// - events_local: one row per pageview or custom event; `visitor` is the visitor hash (so
//   a visitor's events of a day sit on one shard); `day` is the event's UTC day.
// - row_stats_local (SummingMergeTree): rows per (website, statistic, day, value) for the
//   statistics counting pageviews, visits or events; filled by row_stats_mv on every insert.
// - visitor_counts_local (version 2): the unique-visitor statistics of closed days, folded:
//   per (website, statistic, day, value) the distinct visitors (`visitors`) and the
//   pageviews they made (`pageviews`), under a `fold` id per (website, day) and fold. The
//   DayFolder computes them from the node's own raw events with the catalog's one SELECT
//   (aggregate-sql.ts), one INSERT, thus one part, per batch, so a query sees a day's fold
//   whole or not at all. A fold is current while its pageviews add up to the day's
//   pageviews in row_stats_local: an insert into a folded day (an import into the past)
//   makes it stale at once, and the next round folds the day again. A query takes each day
//   from its current fold and counts the days without one (today, a day just imported
//   into) from their raw events with the same SELECT. Folds are only added; a replaced one
//   is deleted 10 minutes after its successor. Version 1 kept uniqExact states of every
//   (day, value) instead (visitor_stats_local), which each query had to merge.
// With a cluster, Distributed tables events and row_stats over the local tables of every
// shard are created on each migrate (distributedTables below), so a server given a cluster
// later gets them then; visitor statistics are read from each node's local tables.

import { COUNT_ROWS, ROW_STATS, statSelect, VISITOR_STATS } from "./aggregate-sql.js";
import { type Sql, sql, sqlIdentifier } from "./sql-escape.js";

export interface ClickHouseMigration {
  version: number;
  name: string;
  /** Statements for one node, in order; each idempotent, as DDL has no transactions. */
  statements(db: Sql): Sql[];
}

export const CLICKHOUSE_MIGRATIONS: readonly ClickHouseMigration[] = [
  {
    version: 1,
    name: "events_local, row_stats_local, visitor_stats_local and their views",
    statements: (db) => [
      sql`CREATE TABLE IF NOT EXISTS ${db}.events_local (
        website_id UInt32,
        ts DateTime('UTC'),
        day Date,
        visitor UInt64,
        kind UInt8,
        is_visit UInt8,
        page String,
        referrer String,
        campaign String,
        browser String,
        os String,
        device String,
        resolution String,
        language String,
        country String,
        city String,
        continent String,
        event String
      ) ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (website_id, ts)`,
      sql`CREATE TABLE IF NOT EXISTS ${db}.row_stats_local (
        website_id UInt32, stat UInt8, day Date, value String, hits UInt64
      ) ENGINE = SummingMergeTree(hits) PARTITION BY toYYYYMM(day) ORDER BY (website_id, stat, day, value)`,
      sql`CREATE TABLE IF NOT EXISTS ${db}.visitor_stats_local (
        website_id UInt32, stat UInt8, day Date, value String, visitors AggregateFunction(uniqExact, UInt64)
      ) ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(day) ORDER BY (website_id, stat, day, value)`,
      sql`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.row_stats_mv TO ${db}.row_stats_local AS
        ${statSelect(ROW_STATS, COUNT_ROWS, sql`${db}.events_local`)}`,
      sql`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.visitor_stats_mv TO ${db}.visitor_stats_local AS
        ${statSelect(VISITOR_STATS, sql`uniqExactState(visitor) AS visitors`, sql`${db}.events_local`)}`,
    ],
  },
  {
    version: 2,
    name: "visitor_counts_local (folded days) instead of visitor_stats_local",
    statements: (db) => [
      sql`CREATE TABLE IF NOT EXISTS ${db}.visitor_counts_local (
        website_id UInt32, stat UInt8, day Date, value String, visitors UInt64, pageviews UInt64,
        fold UInt64, folded_at DateTime
      ) ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (website_id, stat, day, fold, value)`,
      sql`DROP TABLE IF EXISTS ${db}.visitor_stats_mv`,
      sql`DROP TABLE IF EXISTS ${db}.visitor_stats`,
      sql`DROP TABLE IF EXISTS ${db}.visitor_stats_local`,
    ],
  },
];

/** Distributed tables over every shard's local tables; inserts into `events` shard by (website, visitor). */
export function distributedTables(db: Sql, cluster: Sql): Sql[] {
  const over = (table: string, shardKey: Sql | null) =>
    sql`CREATE TABLE IF NOT EXISTS ${db}.${sqlIdentifier(table)} AS ${db}.${sqlIdentifier(`${table}_local`)}
      ENGINE = Distributed(${cluster}, ${db.text}, ${`${table}_local`}${shardKey ? sql`, ${shardKey}` : sql``})`;
  return [over("events", sql`cityHash64(website_id, visitor)`), over("row_stats", null)];
}
