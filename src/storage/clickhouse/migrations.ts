// Versioned schema of the ClickHouse event store, applied in order on every listed node by
// ClickHouseEventStore.migrate(). Never edit a released step: add the next one (a new
// statistic in the catalog needs a step that recreates the row view, then a rebuild).
// ARCHITECTURE.md says what each table holds; day-folds.ts how a fold is made and when it
// is current. Nothing here needs ZooKeeper/Keeper.
//
// History: version 1 kept uniqExact states of every (day, value) of the unique-visitor
// statistics (visitor_stats_local), which each query had to merge; version 2 replaced them
// with plain counts of closed days, folded (visitor_counts_local); version 3 added the zones
// of websites not in UTC and the folds of their local days (zone-folds.ts); version 4 emptied
// the folds, made before the visit statistics (visit-sql.ts), so that the folder folds
// every closed day again with them (queries count those days raw until then): their folds
// are rows of visitor_counts_local and zone_counts_local like the unique visitors' (the
// count in `visitors`, `counted`), and the row view, which must not count them, is as it was.
// With a cluster, the Distributed tables events and row_stats are created on each migrate
// (distributedTables below), so a server given a cluster later gets them then.

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
  {
    version: 3,
    name: "website_zones_local and zone_counts_local (folded local days)",
    statements: (db) => [
      sql`CREATE TABLE IF NOT EXISTS ${db}.website_zones_local (
        website_id UInt32, zone String, version UInt64
      ) ENGINE = ReplacingMergeTree(version) ORDER BY website_id`,
      sql`CREATE TABLE IF NOT EXISTS ${db}.zone_counts_local (
        website_id UInt32, zone String, stat UInt8, day Date, value String, counted UInt64,
        fold UInt64, folded_at DateTime
      ) ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (website_id, zone, stat, day, fold, value)`,
    ],
  },
  {
    version: 4,
    name: "folds emptied, to be folded again with the visit statistics",
    // A fold without visits would look current (its pageviews are the day's) and answer none.
    statements: (db) => [
      sql`TRUNCATE TABLE IF EXISTS ${db}.visitor_counts_local`,
      sql`TRUNCATE TABLE IF EXISTS ${db}.zone_counts_local`,
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
