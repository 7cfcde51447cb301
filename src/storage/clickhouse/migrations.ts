// Versioned schema of the ClickHouse event store, applied in order on every listed node by
// ClickHouseEventStore.migrate(). Never edit a released step: add the next one (a new
// statistic in the catalog needs a step that recreates both views, then a rebuild).
//
// Per node (each a shard; nothing here needs ZooKeeper/Keeper):
// - events_local: one row per pageview or custom event; `visitor` is the visitor hash (so
//   a visitor's events of a day sit on one shard); `day` is the event's UTC day.
// - row_stats_local (SummingMergeTree): rows per (website, statistic, day, value) for the
//   statistics counting pageviews, visits or events; filled by row_stats_mv.
// - visitor_stats_local (AggregatingMergeTree): a uniqExact state of the visitor hashes per
//   (website, statistic, day, value) for the unique-visitor statistics; filled by
//   visitor_stats_mv. Exact, and merged by the engine in the background.
// With a cluster, Distributed tables events, row_stats and visitor_stats over the local
// tables of every shard are created on each migrate (distributedTables below), so a
// server given a cluster later gets them then.

import { aggregateSelect } from "./aggregate-sql.js";
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
        ${aggregateSelect("rows", sql`${db}.events_local`)}`,
      sql`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.visitor_stats_mv TO ${db}.visitor_stats_local AS
        ${aggregateSelect("visitors", sql`${db}.events_local`)}`,
    ],
  },
];

/** Distributed tables over every shard's local tables; inserts into `events` shard by (website, visitor). */
export function distributedTables(db: Sql, cluster: Sql): Sql[] {
  const over = (table: string, shardKey: Sql | null) =>
    sql`CREATE TABLE IF NOT EXISTS ${db}.${sqlIdentifier(table)} AS ${db}.${sqlIdentifier(`${table}_local`)}
      ENGINE = Distributed(${cluster}, ${db.text}, ${`${table}_local`}${shardKey ? sql`, ${shardKey}` : sql``})`;
  return [
    over("events", sql`cityHash64(website_id, visitor)`),
    over("row_stats", null),
    over("visitor_stats", null),
  ];
}
