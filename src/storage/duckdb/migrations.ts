// Versioned schema of the embedded DuckDB event store, applied in order by
// DuckDbEventStore.migrate(). Never edit a released step: add the next one. ARCHITECTURE.md
// says what each table holds now; the steps' history:
//
// 1. events (the city value, `US:Boston` or `US:` when only the country is known, in `geo`;
//    country and continent follow from the code through geo_names), daily_stats, visitor_ids.
// 2-6 kept a tier of batch deltas, a tier of recent days and weekly roll-ups beside
//    daily_stats, maintained by a second, incremental implementation of every statistic.
// 3. places: each city value once, with a number; events store it in `place` and leave `geo`
//    empty, about a byte less per event. Older events keep their `geo` string and `place` 0
//    (adding the column rewrites nothing), and events_view reads either.
// 4. stat_values: the aggregate tables store a value's number, not its string, which makes
//    their rows about a quarter of the size and sums over them group by a number.
// 5. events' text as numbers into text_values (each field, 0-8 in NUMBERED_TEXT_V5's order,
//    numbers its own values densely from 1, so a column of few values packs into few bits);
//    `place` holds the city's for every event and `geo` is gone. Appending and
//    checkpointing nine text columns was most of what the store cost a hit.
// 6. visitor_ids.written: the day each number was written.
// 7. event_days, and daily_stats alone (the tiers summed into it; no index, which would cost
//    more space than the events), folded by the engine from a settled day's raw events;
//    place_names, so statistics join a place's names per place, not per event.

/** The events' text columns numbered by version 5, in table order; a field's number in text_values is its index. */
const NUMBERED_TEXT_V5 = [
  "page",
  "referrer",
  "campaign",
  "browser",
  "os",
  "device",
  "resolution",
  "language",
  "event",
] as const;

/** An aggregate table of versions 1-7: a count per website, statistic, day or week, and value. */
function statTable(
  name: string,
  period: "day" | "week",
  value: "value VARCHAR" | "value_id UINTEGER",
): string {
  return `CREATE TABLE ${name} (
        website_id INTEGER NOT NULL,
        stat UTINYINT NOT NULL,
        ${period} DATE NOT NULL,
        ${value} NOT NULL,
        count BIGINT NOT NULL
      );`;
}

/** The aggregate tables version 4 numbers the values of, each with its period column. */
const AGGREGATES_V4 = [
  ["daily_stats", "day"],
  ["daily_stats_recent", "day"],
  ["daily_stats_deltas", "day"],
  ["weekly_stats", "week"],
] as const;

export const DUCKDB_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: "events, geo_names, daily_stats, daily_stats_recent, visitor_ids",
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
        geo VARCHAR NOT NULL,
        event VARCHAR NOT NULL
      );
      CREATE TABLE geo_names (
        code VARCHAR NOT NULL,
        country VARCHAR NOT NULL,
        continent VARCHAR NOT NULL
      );
      CREATE VIEW events_view AS
        SELECT e.*, e.rowid AS seq,
          CASE WHEN e.geo LIKE '%:' THEN '' ELSE e.geo END AS city,
          coalesce(n.country, '') AS country,
          coalesce(n.continent, '') AS continent
        FROM events e LEFT JOIN (
          SELECT code, any_value(country) AS country, any_value(continent) AS continent FROM geo_names GROUP BY code
        ) n ON n.code = split_part(e.geo, ':', 1);
      ${statTable("daily_stats", "day", "value VARCHAR")}
      ${statTable("daily_stats_recent", "day", "value VARCHAR")}
      CREATE TABLE visitor_ids (
        website_id INTEGER NOT NULL,
        day DATE NOT NULL,
        hash UBIGINT NOT NULL,
        visitor UINTEGER NOT NULL
      );`,
  },
  {
    version: 2,
    name: "daily_stats_deltas, weekly_stats",
    sql: `
      ${statTable("daily_stats_deltas", "day", "value VARCHAR")}
      -- Version 1 kept unmerged rows in daily_stats_recent: they are deltas now.
      INSERT INTO daily_stats_deltas SELECT * FROM daily_stats_recent;
      DELETE FROM daily_stats_recent;
      ${statTable("weekly_stats", "week", "value VARCHAR")}`,
  },
  {
    version: 3,
    name: "places, events.place",
    sql: `
      CREATE TABLE places (
        id UINTEGER NOT NULL,
        geo VARCHAR NOT NULL
      );
      ALTER TABLE events ADD COLUMN place UINTEGER DEFAULT 0;
      CREATE OR REPLACE VIEW events_view AS
        SELECT e.*,
          CASE WHEN e.geo LIKE '%:' THEN '' ELSE e.geo END AS city,
          coalesce(n.country, '') AS country,
          coalesce(n.continent, '') AS continent
        FROM (
          SELECT e.* EXCLUDE (place) REPLACE (coalesce(p.geo, e.geo) AS geo), e.rowid AS seq
          FROM events e LEFT JOIN places p ON p.id = e.place
        ) e LEFT JOIN (
          SELECT code, any_value(country) AS country, any_value(continent) AS continent FROM geo_names GROUP BY code
        ) n ON n.code = split_part(e.geo, ':', 1);`,
  },
  {
    version: 4,
    name: "stat_values, aggregates by value_id",
    sql: `
      CREATE TABLE stat_values (
        id UINTEGER NOT NULL,
        value VARCHAR NOT NULL
      );
      INSERT INTO stat_values
        SELECT CAST(row_number() OVER (ORDER BY value) AS UINTEGER), value
        FROM (SELECT DISTINCT value FROM (SELECT value FROM daily_stats UNION ALL SELECT value FROM daily_stats_recent UNION ALL SELECT value FROM daily_stats_deltas UNION ALL SELECT value FROM weekly_stats));
      ${AGGREGATES_V4.map(
        ([table, period]) => `
          ${statTable(`${table}_numbered`, period, "value_id UINTEGER")}
          INSERT INTO ${table}_numbered
            SELECT t.website_id, t.stat, t.${period}, v.id, t.count FROM ${table} t JOIN stat_values v USING (value) ORDER BY t.rowid;
          DROP TABLE ${table};
          ALTER TABLE ${table}_numbered RENAME TO ${table};`,
      ).join("")}`,
  },
  {
    version: 5,
    name: "events' text as numbers",
    sql: `
      CREATE TABLE text_values (
        field UTINYINT NOT NULL,
        id UINTEGER NOT NULL,
        value VARCHAR NOT NULL
      );
      INSERT INTO text_values
        ${NUMBERED_TEXT_V5.map(
          (c, field) =>
            `SELECT ${field}, CAST(row_number() OVER (ORDER BY ${c}) AS UINTEGER), ${c} FROM (SELECT DISTINCT ${c} FROM events)`,
        ).join(" UNION ALL ")};
      -- Events stored before version 3 still hold their city as a string.
      INSERT INTO places
        SELECT CAST((SELECT coalesce(max(id), 0) FROM places) + row_number() OVER (ORDER BY geo) AS UINTEGER), geo
        FROM (SELECT DISTINCT geo FROM events WHERE geo <> '')
        WHERE geo NOT IN (SELECT geo FROM places);
      CREATE TABLE events_numbered (
        website_id INTEGER NOT NULL,
        ts TIMESTAMP_S NOT NULL,
        visitor UINTEGER NOT NULL,
        kind UTINYINT NOT NULL,
        is_visit BOOLEAN NOT NULL,
        ${NUMBERED_TEXT_V5.map((c) => `${c} UINTEGER NOT NULL`).join(", ")},
        place UINTEGER NOT NULL
      );
      -- Joined in the order written, each field's values the build side: the optimizer's
      -- estimates of nine joins fall to a few rows and it would hash the events instead.
      SET disabled_optimizers = 'common_subplan,join_order';
      INSERT INTO events_numbered
        SELECT e.website_id, e.ts, e.visitor, e.kind, e.is_visit,
          ${NUMBERED_TEXT_V5.map((c) => `v_${c}.id`).join(", ")},
          CASE WHEN e.geo <> '' THEN g.id ELSE coalesce(e.place, 0) END
        FROM events e
          ${NUMBERED_TEXT_V5.map((c, field) => `JOIN (SELECT id, value FROM text_values WHERE field = ${field}) v_${c} ON v_${c}.value = e.${c}`).join(" ")}
          LEFT JOIN places g ON g.geo = e.geo
        ORDER BY e.rowid;
      SET disabled_optimizers = 'common_subplan'; -- as the store opens it (duckdb-event-store.ts)
      DROP VIEW events_view;
      DROP TABLE events;
      ALTER TABLE events_numbered RENAME TO events;
      CREATE VIEW events_geo AS
        SELECT e.*, e.rowid AS seq, coalesce(p.geo, '') AS geo,
          CASE WHEN p.geo IS NULL OR p.geo LIKE '%:' THEN '' ELSE p.geo END AS city,
          coalesce(n.country, '') AS country,
          coalesce(n.continent, '') AS continent
        FROM events e
          LEFT JOIN places p ON p.id = e.place
          LEFT JOIN (
            SELECT code, any_value(country) AS country, any_value(continent) AS continent FROM geo_names GROUP BY code
          ) n ON n.code = split_part(p.geo, ':', 1);
      CREATE VIEW events_view AS
        SELECT e.website_id, e.ts, e.visitor, e.kind, e.is_visit,
          ${NUMBERED_TEXT_V5.map((c) => `v_${c}.value AS ${c}`).join(", ")},
          e.geo, e.seq, e.city, e.country, e.continent
        FROM events_geo e ${NUMBERED_TEXT_V5.map((c, field) => `JOIN (SELECT id, value FROM text_values WHERE field = ${field}) v_${c} ON v_${c}.id = e.${c}`).join(" ")};`,
  },
  {
    version: 6,
    name: "visitor_ids.written",
    sql: `
      ALTER TABLE visitor_ids ADD COLUMN written DATE;
      UPDATE visitor_ids SET written = day;`,
  },
  {
    version: 7,
    name: "event_days; daily_stats alone, folded by the engine",
    sql: `
      CREATE TABLE event_days (
        website_id INTEGER NOT NULL,
        day DATE NOT NULL,
        visitors UINTEGER NOT NULL,
        written TIMESTAMP_S NOT NULL,
        folded BOOLEAN NOT NULL
      );
      -- Every stored day, folded: the aggregates of version 6 were exact for every day.
      INSERT INTO event_days
        SELECT e.website_id, e.day, e.visitors, CAST(coalesce(w.written, e.day) AS TIMESTAMP_S), true
        FROM (SELECT website_id, CAST(ts AS DATE) AS day, CAST(max(visitor) + 1 AS UINTEGER) AS visitors FROM events GROUP BY ALL) e
          LEFT JOIN (SELECT website_id, day, max(written) AS written FROM visitor_ids GROUP BY ALL) w USING (website_id, day)
        ORDER BY e.website_id, e.day;
      -- One row per (website, statistic, day, value): the sum of what the tiers held.
      ${statTable("daily_stats_folded", "day", "value_id UINTEGER")}
      INSERT INTO daily_stats_folded
        SELECT website_id, stat, day, value_id, CAST(sum(count) AS BIGINT) FROM (
          SELECT * FROM daily_stats UNION ALL SELECT * FROM daily_stats_recent UNION ALL SELECT * FROM daily_stats_deltas
        ) GROUP BY ALL HAVING sum(count) <> 0 ORDER BY website_id, stat, value_id, day;
      DROP TABLE daily_stats;
      DROP TABLE daily_stats_recent;
      DROP TABLE daily_stats_deltas;
      DROP TABLE weekly_stats;
      ALTER TABLE daily_stats_folded RENAME TO daily_stats;
      CREATE VIEW place_names AS
        SELECT p.id, CASE WHEN p.geo LIKE '%:' THEN '' ELSE p.geo END AS city,
          coalesce(n.country, '') AS country, coalesce(n.continent, '') AS continent
        FROM places p LEFT JOIN (
          SELECT code, any_value(country) AS country, any_value(continent) AS continent FROM geo_names GROUP BY code
        ) n ON n.code = split_part(p.geo, ':', 1);`,
  },
  {
    version: 8,
    name: "visitor numbers per website; each website's time zone",
    // Numbers were given per (website, UTC day); a local day spans two UTC days, so they
    // become unique per website: each day's numbers move up by the numbers of the
    // website's earlier days. event_websites keeps the next number and the zone.
    sql: `
      CREATE TABLE event_websites (
        website_id INTEGER NOT NULL,
        zone VARCHAR NOT NULL,
        visitors UINTEGER NOT NULL
      );
      CREATE TEMP TABLE day_bases AS
        SELECT website_id, day, CAST(sum(visitors) OVER (PARTITION BY website_id ORDER BY day) - visitors AS UINTEGER) AS base
        FROM event_days;
      UPDATE events SET visitor = events.visitor + b.base FROM day_bases b
        WHERE b.base > 0 AND events.website_id = b.website_id AND CAST(events.ts AS DATE) = b.day;
      UPDATE visitor_ids SET visitor = visitor_ids.visitor + b.base FROM day_bases b
        WHERE b.base > 0 AND visitor_ids.website_id = b.website_id AND visitor_ids.day = b.day;
      INSERT INTO event_websites
        SELECT website_id, 'UTC', CAST(sum(visitors) AS UINTEGER) FROM event_days GROUP BY website_id ORDER BY website_id;
      DROP TABLE day_bases;
      ALTER TABLE event_days DROP COLUMN visitors;`,
  },
  {
    version: 9,
    name: "visits: day_visits, and every day to fold again with the visit statistics",
    // One row per visit of a folded day (aggregate-sql.ts, foldDaySql): a filtered visit
    // statistic joins the matching events to these instead of finding the visits of every
    // event of its window again (at 1M events: 52 ms against 300 ms, 2.6 s for exit pages).
    // The days folded before have no visit statistics: they count from raw events until
    // the upkeep has folded them again.
    sql: `
      CREATE TABLE day_visits (
        website_id INTEGER NOT NULL,
        day DATE NOT NULL,
        visitor UINTEGER NOT NULL,
        start UINTEGER NOT NULL,
        finish UINTEGER NOT NULL,
        until UINTEGER NOT NULL,
        pageviews UINTEGER NOT NULL,
        hour UTINYINT NOT NULL,
        exit_page UINTEGER
      );
      UPDATE event_days SET folded = false;`,
  },
  {
    version: 10,
    name: "day_visits with the visitor's attributes, and every day to fold again",
    // The attributes of the visitor's day on each visit (aggregate-sql.ts, VISITOR_COLUMNS),
    // and its first visit marked: a visit or unique-visitor statistic filtered on them reads
    // the visits alone. The table is made again
    // (DuckDB refuses several ALTERs of a table holding rows in one transaction) and empty:
    // every day is open until the upkeep folds it again, counted from its events meanwhile.
    sql: `
      DROP TABLE day_visits;
      CREATE TABLE day_visits (
        website_id INTEGER NOT NULL,
        day DATE NOT NULL,
        visitor UINTEGER NOT NULL,
        start UINTEGER NOT NULL,
        finish UINTEGER NOT NULL,
        until UINTEGER NOT NULL,
        pageviews UINTEGER NOT NULL,
        hour UTINYINT NOT NULL,
        exit_page UINTEGER,
        mixed BOOLEAN NOT NULL,
        browser UINTEGER,
        os UINTEGER,
        device UINTEGER,
        resolution UINTEGER,
        language UINTEGER,
        place UINTEGER,
        first_of_day BOOLEAN NOT NULL
      );
      UPDATE event_days SET folded = false;`,
  },
  {
    version: 11,
    name: "day_visits with the hours of the visitor's day, and every day to fold again",
    // The hours of day with a pageview of the visitor's day on each visit (aggregate-sql.ts,
    // dayVisitsSql): unique visitors by hour filtered on the visitor's attributes read the
    // visits alone. Made again and empty, as in version 10.
    sql: `
      DROP TABLE day_visits;
      CREATE TABLE day_visits (
        website_id INTEGER NOT NULL,
        day DATE NOT NULL,
        visitor UINTEGER NOT NULL,
        start UINTEGER NOT NULL,
        finish UINTEGER NOT NULL,
        until UINTEGER NOT NULL,
        pageviews UINTEGER NOT NULL,
        hour UTINYINT NOT NULL,
        exit_page UINTEGER,
        mixed BOOLEAN NOT NULL,
        browser UINTEGER,
        os UINTEGER,
        device UINTEGER,
        resolution UINTEGER,
        language UINTEGER,
        place UINTEGER,
        first_of_day BOOLEAN NOT NULL,
        day_hours UINTEGER NOT NULL
      );
      UPDATE event_days SET folded = false;`,
  },
  {
    version: 12,
    name: "visit_days and visitor_changes: the visits of open days kept current",
    // The days whose visits day_visits keeps (every visitor's but those of visitor_changes,
    // written since their visits were found): a day's fold, and the upkeep for a day that has
    // not ended, so today's visit statistics read its visits instead of finding them again
    // from its events (aggregate-sql.ts, openVisitsSql). The folded days' visits are whole;
    // an open day's are found again until the upkeep keeps them.
    sql: `
      CREATE TABLE visit_days (website_id INTEGER NOT NULL, day DATE NOT NULL);
      INSERT INTO visit_days SELECT website_id, day FROM event_days WHERE folded;
      CREATE TABLE visitor_changes (website_id INTEGER NOT NULL, day DATE NOT NULL, visitor UINTEGER NOT NULL);`,
  },
  {
    version: 13,
    name: "events.round and visit_days.round: the counts of open days kept current",
    // Each insert marks its events with the store's round, and keeping a day (a fold, or the
    // upkeep of a day not ended) ends the round: the day's counts in daily_stats, as its
    // visits in day_visits, hold its events of that round and before (visit_days.round), and
    // a statistic adds what the later ones changed (aggregate-sql.ts, keptDayStatements).
    // Every stored event is of round 0, which a folded day's counts hold; an open day's
    // counts were not kept, so it is counted from its events until the upkeep keeps it.
    sql: `
      ALTER TABLE events ADD COLUMN round UINTEGER DEFAULT 0;
      DROP TABLE visit_days;
      CREATE TABLE visit_days (website_id INTEGER NOT NULL, day DATE NOT NULL, round UINTEGER NOT NULL);
      INSERT INTO visit_days SELECT website_id, day, 0 FROM event_days WHERE folded;`,
  },
];
