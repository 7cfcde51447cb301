// Where a statistic's time goes, on a stopped store (for instance one kept by
// `stats.mjs --keep`): for each statistic, how many aggregate rows it reads (rows of
// daily_stats and daily_stats_recent in the window, and how many distinct (day, value)
// keys they hold: more rows than keys means a key's count is spread over several rows),
// and the time of the store's own `queryStat` in-process (no HTTP), median of `--runs`.
// With `--explain NAME[,NAME]`, DuckDB's EXPLAIN ANALYZE of the same query (the SQL of
// DuckDbEventStore.queryStat, written out here) for those statistics.
//
// `--merge` is an experiment, and CHANGES THE STORE: it first rewrites the aggregates as
// one row per (website, statistic, day, value), sorted by website, statistic and day (what
// the store would hold if it merged each day's rows and kept them in that order), so the
// figures show what such a layout would answer. The answers stay the same (the sums do).
//
// Run it while no server uses the data directory; pin it like the server
// (`taskset -c 1 node bench/stats-explain.mjs ...`) to time it on one core.
//
//   node bench/stats-explain.mjs --data-dir DIR --website-id 1 --from 2026-10-20 --to 2026-11-18 \
//     [--runs 5] [--explain city,page]

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
    merge: { type: "boolean", default: false },
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
const { ALL_STATS_SQL } = await load("storage/duckdb/aggregate-sql.js");
const { DuckDbEventStore } = await load("storage/duckdb/duckdb-event-store.js");

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round2 = (n) => Math.round(n * 100) / 100;

const dataFile = path.join(options["data-dir"], "events.duckdb");

// 0. The experiment: merged and sorted aggregates.
if (options.merge) {
  const instance = await DuckDBInstance.create(dataFile);
  const connection = await instance.connect();
  try {
    const began = performance.now();
    for (const sql of [
      "BEGIN TRANSACTION",
      `CREATE TABLE merged_stats AS
         SELECT website_id, stat, day, value, CAST(sum(count) AS BIGINT) AS count FROM ${ALL_STATS_SQL}
         GROUP BY ALL HAVING sum(count) <> 0 ORDER BY website_id, stat, day, value`,
      "DELETE FROM daily_stats_recent",
      "DROP TABLE daily_stats",
      "ALTER TABLE merged_stats RENAME TO daily_stats",
      "COMMIT",
      "CHECKPOINT",
    ]) {
      await connection.run(sql);
    }
    console.error(`aggregates merged and sorted in ${Math.round(performance.now() - began)} ms`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

// 1. The store's own query, in-process.
const timings = new Map();
const store = await DuckDbEventStore.open(options["data-dir"]);
try {
  for (const stat of STATS) {
    const query = {
      websiteId,
      stat,
      from: options.from,
      to: options.to,
      search: null,
      sortBy: "count",
      sort: "desc",
      limit: 10,
      offset: 0,
    };
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
const rows = async (sql) => (await connection.runAndReadAll(sql)).getRowObjects();
const window = `website_id = ${websiteId} AND day BETWEEN DATE '${options.from}' AND DATE '${options.to}'`;
const report = { from: options.from, to: options.to, stats: [], explain: {} };
try {
  const tables = await rows(
    `SELECT 'daily_stats' AS name, count(*) AS n FROM daily_stats UNION ALL SELECT 'daily_stats_recent', count(*) FROM daily_stats_recent`,
  );
  report.tableRows = Object.fromEntries(tables.map((row) => [row.name, Number(row.n)]));
  const counts = await rows(
    `SELECT stat, count(*) AS n, count(DISTINCT (day, value)) AS keys, count(DISTINCT value) AS vals
     FROM ${ALL_STATS_SQL} WHERE ${window} GROUP BY stat`,
  );
  const byId = new Map(counts.map((row) => [Number(row.stat), row]));
  for (const stat of STATS) {
    const row = byId.get(stat.id);
    report.stats.push({
      name: stat.name,
      storeQueryMs: timings.get(stat.name),
      rows: Number(row?.n ?? 0),
      dayValueKeys: Number(row?.keys ?? 0),
      values: Number(row?.vals ?? 0),
    });
  }
  for (const name of options.explain.split(",").filter(Boolean)) {
    const stat = STATS.find((candidate) => candidate.name === name);
    if (!stat) throw new Error(`no statistic ${name}`);
    const plan = await rows(
      `EXPLAIN ANALYZE SELECT value, CAST(sum(count) AS BIGINT) AS n, count(*) OVER () AS total
       FROM ${ALL_STATS_SQL} WHERE ${window} AND stat = ${stat.id}
       GROUP BY value HAVING sum(count) > 0 ORDER BY n DESC, value ASC LIMIT 10 OFFSET 0`,
    );
    report.explain[name] = plan.map((row) => String(row.explain_value)).join("\n");
  }
} finally {
  connection.closeSync();
  instance.closeSync();
}

console.log(
  [
    `aggregate rows: ${Object.entries(report.tableRows)
      .map(([table, n]) => `${table} ${n}`)
      .join(", ")}`,
    "statistic        store ms  rows in window  (day, value) keys  values",
    ...report.stats.map(
      (stat) =>
        `${stat.name.padEnd(16)} ${String(stat.storeQueryMs).padStart(8)}  ${String(stat.rows).padStart(14)}  ${String(stat.dayValueKeys).padStart(17)}  ${String(stat.values).padStart(6)}`,
    ),
    ...Object.entries(report.explain).map(([name, plan]) => `\nEXPLAIN ANALYZE (${name}):\n${plan}`),
  ].join("\n"),
);
