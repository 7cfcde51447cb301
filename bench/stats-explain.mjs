// Where a statistic's time goes, on a stopped store (for instance one kept by
// `stats.mjs --keep`): for each statistic, how many daily_stats rows its query reads (the
// window's folded days) over how many values, how many days are still open (counted from
// raw events), and the time of the
// store's own `queryStat` in-process (no HTTP), median of `--runs`. With
// `--explain NAME[,NAME]`, DuckDB's EXPLAIN ANALYZE of the store's own SQL for those
// statistics; with `--filters F` (the API's syntax), the same for the filtered statistics.
// Then the store's realtime query at the minute of the website's last pageview (the
// visitors of the 5 minutes before it, its 30 minutes' pageviews), median of `--runs`.
//
// Run it while no server uses the data directory; pin it like the server
// (`taskset -c 1 node bench/stats-explain.mjs ...`) to time it on one core.
//
//   node bench/stats-explain.mjs --data-dir DIR --website-id 1 --from 2026-10-20 --to 2026-11-18 \
//     [--runs 5] [--explain city,page] [--filters "country==US:United States"]

import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";
import { ROOT_DIR } from "./processes.mjs";

const load = (file) => import(pathToFileURL(path.join(ROOT_DIR, "dist", "src", file)).href);

const { values: options } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    "website-id": { type: "string", default: "1" },
    from: { type: "string" },
    to: { type: "string" },
    runs: { type: "string", default: "5" },
    explain: { type: "string", default: "" },
    filters: { type: "string" },
    // The website's time zone, as its settings say (bench/stats.mjs makes America/New_York).
    zone: { type: "string", default: "UTC" },
  },
});
if (
  !options["data-dir"] ||
  !/^\d{4}-\d\d-\d\d$/.test(options.from ?? "") ||
  !/^\d{4}-\d\d-\d\d$/.test(options.to ?? "")
) {
  console.error(
    "usage: stats-explain.mjs --data-dir DIR --website-id 1 --from YYYY-MM-DD --to YYYY-MM-DD [--runs 5] [--explain a,b]",
  );
  process.exit(2);
}
const websiteId = Number(options["website-id"]);
const runs = Number(options.runs);
const { STATS } = await load("stats/catalog.js");
const { KEPT_CHANGES_TABLE_SQL, keptChangesStatements, statQuerySql } = await load(
  "storage/duckdb/aggregate-sql.js",
);
const { DuckDbEventStore } = await load("storage/duckdb/duckdb-event-store.js");
const { parseFilters } = await load("stats/stats-filter.js");
const parsedFilters = options.filters === undefined ? { filters: [] } : parseFilters(options.filters);
if ("problem" in parsedFilters) {
  console.error(parsedFilters.problem);
  process.exit(2);
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round2 = (n) => Math.round(n * 100) / 100;

const dataFile = path.join(options["data-dir"], "events.duckdb");

const baseQuery = {
  websiteId,
  from: options.from,
  to: options.to,
  filters: parsedFilters.filters,
  zone: options.zone,
  search: null,
  sortBy: "count",
  sort: "desc",
  limit: 10,
  offset: 0,
};
const queryOf = (stat) => ({ ...baseQuery, stat });

// 1. The store's own query, in-process.
const timings = new Map();
const store = await DuckDbEventStore.open(options["data-dir"], { upkeep: false });
await store.migrate(); // as the server does (nothing to apply on a store it made)
try {
  for (const stat of STATS) {
    const query = queryOf(stat);
    await store.queryStat(query); // warm-up
    const times = [];
    for (let i = 0; i < runs; i++) {
      const began = performance.now();
      await store.queryStat(query);
      times.push(performance.now() - began);
    }
    timings.set(stat.name, round2(median(times)));
  }
} finally {
  await store.close();
}

// 2. What each statistic reads, and the plans asked for.
const instance = await DuckDBInstance.create(dataFile);
const connection = await instance.connect();
const rows = async (sql, params) => (await connection.runAndReadAll(sql, params)).getRowObjects();
const report = { from: options.from, to: options.to, stats: [], explain: {} };
let openDays = [];
const keptDays = [];
/** The instant (ms) of the website's last pageview, for the realtime query. */
let lastPageview = null;
try {
  const tables = await rows(
    ["daily_stats", "event_days", "events"]
      .map((table) => `SELECT '${table}' AS name, count(*) AS n FROM ${table}`)
      .join(" UNION ALL "),
  );
  report.tableRows = Object.fromEntries(tables.map((row) => [row.name, Number(row.n)]));
  const open = await rows(
    `SELECT strftime(day, '%Y-%m-%d') AS day FROM event_days
     WHERE website_id = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE) AND NOT folded ORDER BY day`,
    [websiteId, options.from, options.to],
  );
  openDays = open.map((row) => String(row.day));
  // The open days whose counts and visits are kept, as the store reads them for an
  // unfiltered statistic.
  const kept = await rows(
    `SELECT strftime(day, '%Y-%m-%d') AS day FROM visit_days
     WHERE website_id = $1 AND day BETWEEN CAST($2 AS DATE) AND CAST($3 AS DATE)`,
    [websiteId, options.from, options.to],
  );
  for (const row of kept) if (openDays.includes(String(row.day))) keptDays.push(String(row.day));
  // What changed in them since their rounds, held as the store's reader holds it.
  await connection.run(KEPT_CHANGES_TABLE_SQL);
  for (const [i, day] of keptDays.entries())
    for (const statement of keptChangesStatements(options.zone, day, i + 1))
      await connection.run(statement, [websiteId]);
  const [last] = await rows(
    "SELECT CAST(epoch(max(ts)) AS BIGINT) AS seconds FROM events WHERE website_id = $1 AND kind = 0",
    [websiteId],
  );
  if (last?.seconds !== null && last?.seconds !== undefined) lastPageview = Number(last.seconds) * 1000;
  for (const stat of STATS) {
    const [read] = await rows(
      `SELECT count(*) AS n, count(DISTINCT value_id) AS vals FROM daily_stats
       WHERE website_id = $1 AND stat = $2 AND day BETWEEN CAST($3 AS DATE) AND CAST($4 AS DATE)`,
      [websiteId, stat.id, options.from, options.to],
    );
    report.stats.push({
      name: stat.name,
      storeQueryMs: timings.get(stat.name),
      rows: Number(read?.n ?? 0),
      values: Number(read?.vals ?? 0),
    });
  }
  for (const name of options.explain.split(",").filter(Boolean)) {
    const stat = STATS.find((candidate) => candidate.name === name);
    if (!stat) throw new Error(`no statistic ${name}`);
    const query = queryOf(stat);
    const unfiltered = query.filters.length === 0;
    const { page } = statQuerySql(query, openDays, { keptDays: unfiltered ? keptDays : [] });
    const plan = await rows(`EXPLAIN ANALYZE ${page.sql}`, page.params);
    report.explain[name] = plan.map((row) => String(row.explain_value)).join("\n");
  }
} finally {
  connection.closeSync();
  instance.closeSync();
}

// 3. Realtime at the last pageview's minute, in-process.
if (lastPageview !== null) {
  const minute = Math.floor(lastPageview / 60_000) * 60_000;
  const query = {
    websiteId,
    visitorsFrom: lastPageview - 300_000,
    minutesFrom: minute - 29 * 60_000,
    until: lastPageview,
  };
  const opened = await DuckDbEventStore.open(options["data-dir"], { upkeep: false });
  try {
    let counts = await opened.queryRealtime(query); // warm-up
    const times = [];
    for (let i = 0; i < runs; i++) {
      const began = performance.now();
      counts = await opened.queryRealtime(query);
      times.push(performance.now() - began);
    }
    report.realtime = {
      at: new Date(lastPageview).toISOString(),
      storeQueryMs: round2(median(times)),
      visitors: counts.visitors,
      pageviews: counts.minutes.reduce((sum, entry) => sum + entry.pageviews, 0),
    };
  } finally {
    await opened.close();
  }
}

console.log(
  [
    `aggregate rows: ${Object.entries(report.tableRows)
      .map(([table, n]) => `${table} ${n}`)
      .join(", ")}; open days in the window: ${openDays.length ? openDays.join(", ") : "none"}`,
    "statistic        store ms  rows read  values",
    ...report.stats.map(
      (stat) =>
        `${stat.name.padEnd(16)} ${String(stat.storeQueryMs).padStart(8)}  ${String(stat.rows).padStart(9)}  ${String(stat.values).padStart(6)}`,
    ),
    report.realtime
      ? `realtime at ${report.realtime.at}: ${report.realtime.storeQueryMs} ms (${report.realtime.visitors} visitors, ${report.realtime.pageviews} pageviews in 30 minutes)`
      : "realtime: no pageviews",
    ...Object.entries(report.explain).map(([name, plan]) => `\nEXPLAIN ANALYZE (${name}):\n${plan}`),
  ].join("\n"),
);
