// Versioned schema of the embedded DuckDB event store, applied in order by
// DuckDbEventStore.migrate(). Never edit a released step: add the next one.

export const DUCKDB_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: "events",
    sql: `
      CREATE TABLE events (
        website_id INTEGER NOT NULL,
        ts TIMESTAMP NOT NULL,
        visitor UBIGINT NOT NULL,
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
      );`,
  },
  {
    version: 2,
    name: "daily_stats",
    sql: `
      CREATE TABLE daily_stats (
        website_id INTEGER NOT NULL,
        stat UTINYINT NOT NULL,
        day DATE NOT NULL,
        value VARCHAR NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (website_id, stat, day, value)
      );`,
  },
];
