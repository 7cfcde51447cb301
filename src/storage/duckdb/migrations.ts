// Versioned schema of the embedded DuckDB event store, applied in order by
// DuckDbEventStore.migrate(). Never edit a released step: add the next one.
//
// - events: one row per pageview or custom event. `visitor` is the visitor's number on
//   that website and day (dense, so it packs into a few bits); `ts` has second precision.
// - daily_stats: counts per (website, statistic, day, value), appended as deltas with each
//   batch and summed by queries; recent days are compacted now and then. No index: it
//   would cost more space than the events themselves.
// - visitor_ids: which visitor hash has which number, kept only for today and yesterday
//   (the days whose salts still exist), so a restart goes on numbering the same visitors.

export const DUCKDB_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: "events, daily_stats, visitor_ids",
    sql: `
      CREATE TABLE events (
        website_id INTEGER NOT NULL,
        ts TIMESTAMP_S NOT NULL,
        visitor UINTEGER NOT NULL,
        kind UTINYINT NOT NULL,
        is_visit BOOLEAN NOT NULL,
        page VARCHAR NOT NULL,
        referrer VARCHAR NOT NULL,
        campaign VARCHAR NOT NULL,
        browser VARCHAR NOT NULL,
        os VARCHAR NOT NULL,
        device VARCHAR NOT NULL,
        resolution VARCHAR NOT NULL,
        language VARCHAR NOT NULL,
        country VARCHAR NOT NULL,
        city VARCHAR NOT NULL,
        continent VARCHAR NOT NULL,
        event VARCHAR NOT NULL
      );
      CREATE TABLE daily_stats (
        website_id INTEGER NOT NULL,
        stat UTINYINT NOT NULL,
        day DATE NOT NULL,
        value VARCHAR NOT NULL,
        count BIGINT NOT NULL
      );
      CREATE TABLE visitor_ids (
        website_id INTEGER NOT NULL,
        day DATE NOT NULL,
        hash UBIGINT NOT NULL,
        visitor UINTEGER NOT NULL
      );`,
  },
];
