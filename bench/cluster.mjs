// The scale-out benchmark: bulk import through POST /api/v1/events (with the tracker's
// engagements and one-page visits) and every statistic over 30 days, at --events (10 million) events, on the embedded store and on a ClickHouse
// cluster, in the same run, with the same events, on the same machine. Also checks that
// both stores give the same answers (first 100 rows and total of every statistic), and
// how many rows the cluster's aggregate tables hold against its raw events. Before timing
// the cluster it waits until the server has folded every closed day (the statistics then
// read counts for those, and raw events only for today). Then the same statistics under
// each filter set of --filters (`|` between sets), also compared between the stores.
//
//   node bench/cluster.mjs --clickhouse-url http://127.0.0.1:8123,http://127.0.0.1:8124 \
//     --cluster analytics [--database-url postgres://...] [--events 10000000] [--batch 10000]
//     [--concurrency 2] [--days 30] [--runs 5] [--server-cpu 1] [--load-cpu 0]
//     [--targets embedded,cluster] [--keep] [--json] [--filters "page==/pricing|browser!=Chrome"]
//     [--zone America/New_York]
//
// `--zone` is the website's time zone (America/New_York by default, as bench/stats.mjs):
// the cluster then folds the website's local days (zone-folds.ts), which it waits for too.
//
// The product's server runs pinned to --server-cpu and the import's generator to
// --load-cpu; the ClickHouse servers are not pinned (they are started by
// deploy/clickhouse/start-local-cluster.sh, or are real hosts). Each target gets a fresh
// data directory; the cluster a fresh database on every node (dropped at the end unless
// --keep); with --database-url the metadata of both targets lives in PostgreSQL, each in a
// fresh schema.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { STATS } from "../dist/src/stats/catalog.js";
import { staleDaysSql } from "../dist/src/storage/clickhouse/day-folds.js";
import { sqlIdentifier } from "../dist/src/storage/clickhouse/sql-escape.js";
import { staleLocalDays } from "../dist/src/storage/clickhouse/zone-folds.js";
import {
  BENCH_DIR,
  cpuTimeMs,
  createUser,
  createWebsite,
  lastJsonLine,
  peakRssMiB,
  runCommand,
  startProduct,
  stop,
  threadCpuMs,
  waitQuiet,
} from "./processes.mjs";

const { values: options } = parseArgs({
  options: {
    "clickhouse-url": { type: "string" },
    cluster: { type: "string", default: "" },
    "database-url": { type: "string", default: "" },
    events: { type: "string", default: "10000000" },
    filters: {
      type: "string",
      default:
        "page==/pricing|country==US:United States|browser!=Chrome|referrer~google|page~/docs;device==mobile",
    },
    batch: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "2" },
    days: { type: "string", default: "30" },
    runs: { type: "string", default: "5" },
    "server-cpu": { type: "string", default: "1" },
    "load-cpu": { type: "string", default: "0" },
    targets: { type: "string", default: "embedded,cluster" },
    keep: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    zone: { type: "string", default: "America/New_York" },
  },
});
const targets = options.targets.split(",").filter(Boolean);
if (targets.includes("cluster") && !options["clickhouse-url"]) {
  console.error(
    "usage: cluster.mjs --clickhouse-url URL[,URL...] [--cluster NAME] [options]; see the header",
  );
  process.exit(2);
}
const chUrls = (options["clickhouse-url"] ?? "")
  .split(",")
  .filter(Boolean)
  .map((url) => url.replace(/\/+$/, ""));
const events = Number(options.events);
const days = Number(options.days);
const log = (message) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-cluster-bench-"));
const DAY_MS = 86_400_000;
// One window for both targets: the same events land on the same days.
const end = Math.floor((Date.now() - 120_000) / 60_000) * 60_000;
const from = new Date(end - days * DAY_MS).toISOString().slice(0, 10);
const to = new Date(end).toISOString().slice(0, 10);

/** Runs one statement on one ClickHouse node over HTTP; resolves to the answer's text. */
async function clickhouse(url, query) {
  const response = await fetch(`${url}/`, { method: "POST", body: query });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse ${url}: ${response.status} ${text.slice(0, 300)}`);
  return text;
}

/** A fresh PostgreSQL schema for one target's metadata (dropped at the end unless --keep). */
async function freshSchema(databaseUrl) {
  const pg = (await import("pg")).default;
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const run = async (statement) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${name}`);
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return { url: url.toString(), drop: () => run(`DROP SCHEMA IF EXISTS ${name} CASCADE`) };
}

function clickhousePids() {
  const pids = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("clickhouse"))
        pids.push(Number(pid));
    } catch {
      // gone
    }
  }
  return pids;
}
const clickhouseCpuMs = () => clickhousePids().reduce((total, pid) => total + cpuTimeMs(pid), 0);

/** Every statistic's first 100 rows and total, to compare the targets' answers. */
const filterSets = options.filters.split("|").filter(Boolean);

async function answers(url, key, websiteId, filters = null) {
  const result = {};
  for (const { name } of STATS) {
    const query = new URLSearchParams({ name, from, to, per_page: "100" });
    if (filters) query.set("filters", filters);
    const response = await fetch(`${url}/api/v1/stats/${websiteId}?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = await response.json();
    result[name] = { status: response.status, total: body.total, data: body.data };
  }
  return result;
}

async function measureTarget(target) {
  const dataDir = path.join(tmp, target);
  const env = {};
  const cleanups = [];
  if (options["database-url"]) {
    const schema = await freshSchema(options["database-url"]);
    env.ANALYTICS_DATABASE_URL = schema.url;
    if (!options.keep) cleanups.push(schema.drop);
  }
  let database = null;
  if (target === "cluster") {
    database = `bench_${randomBytes(4).toString("hex")}`;
    env.ANALYTICS_CLICKHOUSE_URL = chUrls.map((url) => `${url}/${database}`).join(",");
    env.ANALYTICS_CLICKHOUSE_CLUSTER = options.cluster;
    if (!options.keep) {
      cleanups.push(async () => {
        for (const url of chUrls) await clickhouse(url, `DROP DATABASE IF EXISTS ${database}`);
      });
    }
  }
  try {
    log(`${target}: setting up in ${dataDir}${database ? `, ClickHouse database ${database}` : ""}`);
    const key = await createUser(dataDir, "bench@bench.example", env);
    const server = await startProduct({
      dataDir,
      cpu: options["server-cpu"],
      log: path.join(tmp, `${target}.log`),
      env,
    });
    try {
      const websiteId = await createWebsite(server.url, key, "bench.example", options.zone);
      await waitQuiet({ maxBusyPct: 20, timeoutMs: 120_000 });

      log(
        `${target}: importing ${events} events (${options.batch} a request, ${options.concurrency} in flight)`,
      );
      const serverBefore = threadCpuMs(server.child.pid);
      const chBefore = clickhouseCpuMs();
      const imported = lastJsonLine(
        await runCommand(
          process.execPath,
          [
            path.join(BENCH_DIR, "import-load.mjs"),
            ...["--url", server.url, "--key", key, "--website-id", String(websiteId)],
            ...["--events", String(events), "--batch", options.batch, "--concurrency", options.concurrency],
            ...["--days", String(days), "--seed", "2", "--end", new Date(end).toISOString(), "--visits"],
          ],
          { cpu: options["load-cpu"] },
        ),
      );
      const serverAfter = threadCpuMs(server.child.pid);
      const importPeakRssMiB = peakRssMiB(server.child.pid);
      const chMs = clickhouseCpuMs() - chBefore;
      const serverMs = serverAfter.main + serverAfter.others - serverBefore.main - serverBefore.others;
      log(
        `${target}: ${imported.eventsPerSecond} events/s (${imported.accepted} accepted, ` +
          `${imported.failures.length} failed requests); server ${((serverMs * 1000) / imported.accepted).toFixed(1)} µs/event` +
          (target === "cluster"
            ? `, ClickHouse ${((chMs * 1000) / imported.accepted).toFixed(1)} µs/event`
            : ""),
      );

      if (database) {
        // The server folds closed days once they stopped changing (every 10 s): wait for it.
        const today = new Date().toISOString().slice(0, 10);
        const started = Date.now();
        for (;;) {
          let stale = 0;
          for (const url of chUrls) {
            const text = await clickhouse(
              url,
              `${staleDaysSql(sqlIdentifier(database), today).text} FORMAT JSONEachRow`,
            );
            stale += text.split("\n").filter(Boolean).length;
            // The website's local days, when its zone is not UTC.
            const node = {
              query: async (statement) =>
                (await clickhouse(url, `${statement.text} FORMAT JSONEachRow`))
                  .split("\n")
                  .filter(Boolean)
                  .map((line) => JSON.parse(line)),
            };
            if (options.zone !== "UTC") {
              const website = { websiteId, zone: options.zone };
              stale += (await staleLocalDays(node, sqlIdentifier(database), website, Date.now())).length;
            }
          }
          if (stale === 0) break;
          if (Date.now() - started > 600_000)
            throw new Error(`${stale} closed days still unfolded after 10 minutes`);
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
        log(`${target}: closed days folded ${((Date.now() - started) / 1000).toFixed(0)} s after the import`);
      }
      await waitQuiet({ maxBusyPct: 20, timeoutMs: 180_000 });
      log(`${target}: the 17 statistics over ${from}..${to}, median of ${options.runs}`);
      const queried = lastJsonLine(
        await runCommand(process.execPath, [
          path.join(BENCH_DIR, "stats-query.mjs"),
          ...["--url", server.url, "--key", key, "--website-id", String(websiteId)],
          ...["--from", from, "--to", to, "--runs", options.runs, "--server-pid", String(server.child.pid)],
        ]),
      );
      const slowest = queried.stats.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
      log(`${target}: slowest statistic ${slowest.name} ${slowest.medianMs} ms`);
      const answered = await answers(server.url, key, websiteId);
      const filtered = [];
      for (const filters of filterSets) {
        const timed = lastJsonLine(
          await runCommand(process.execPath, [
            path.join(BENCH_DIR, "stats-query.mjs"),
            ...["--url", server.url, "--key", key, "--website-id", String(websiteId)],
            ...["--from", from, "--to", to, "--runs", options.runs, "--filters", filters],
          ]),
        );
        const worst = timed.stats.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
        log(`${target}: filtered by ${filters}: slowest ${worst.name} ${worst.medianMs} ms`);
        filtered.push({ filters, stats: timed, answers: await answers(server.url, key, websiteId, filters) });
      }

      let rows = null;
      if (database) {
        const count = async (table) =>
          Number((await clickhouse(chUrls[0], `SELECT count() FROM ${database}.${table}`)).trim());
        let visitorCounts = 0;
        for (const url of chUrls)
          visitorCounts += Number(
            (await clickhouse(url, `SELECT count() FROM ${database}.visitor_counts_local`)).trim(),
          );
        rows = { events: await count("events"), rowStats: await count("row_stats"), visitorCounts };
      }
      const stopped = await stop(server.child);
      return {
        target,
        import: {
          ...imported,
          serverUsPerEvent: (serverMs * 1000) / imported.accepted,
          clickhouseMs: chMs,
          peakRssMiB: importPeakRssMiB,
        },
        stats: queried,
        answers: answered,
        filtered,
        rows,
        exit: stopped.code,
      };
    } finally {
      if (server.child.exitCode === null) await stop(server.child);
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error) => log(`cleanup: ${error.message}`));
  }
}

const report = {
  machine: `${os.cpus()[0]?.model ?? "cpu"}, ${os.cpus().length} CPUs, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  events,
  window: { from, to },
  targets: {},
};
try {
  for (const target of targets) report.targets[target] = await measureTarget(target);
} finally {
  if (!options.keep) fs.rmSync(tmp, { recursive: true, force: true });
}

const [first, second] = targets.map((target) => report.targets[target]);
if (first && second) {
  const differing = Object.keys(first.answers).filter(
    (name) => JSON.stringify(first.answers[name]) !== JSON.stringify(second.answers[name]),
  );
  for (const [i, { filters, answers: ours }] of first.filtered.entries()) {
    const theirs = second.filtered[i]?.answers ?? {};
    for (const name of Object.keys(ours)) {
      if (JSON.stringify(ours[name]) !== JSON.stringify(theirs[name]))
        differing.push(`${name} filtered by ${filters}`);
    }
  }
  report.sameAnswers = { ok: differing.length === 0, differing };
}

if (options.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`${report.machine}; ${events} events over ${from}..${to}`);
  const names = first ? first.stats.stats.map((s) => s.name) : [];
  const head = ["statistic", ...targets.map((t) => `${t} ms`)];
  if (second) head.push(`${targets[1]} / ${targets[0]}`);
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  for (const name of names) {
    const ms = targets.map((t) => report.targets[t].stats.stats.find((s) => s.name === name)?.medianMs);
    const cells = [name, ...ms.map(String)];
    if (second) cells.push((ms[1] / ms[0]).toFixed(2));
    console.log(`| ${cells.join(" | ")} |`);
  }
  for (const [i, { filters }] of (first?.filtered ?? []).entries()) {
    const slowest = targets.map((t) => {
      const stats = report.targets[t].filtered[i].stats.stats;
      const worst = stats.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
      return `${t} ${worst.medianMs} ms (${worst.name})${stats.every((s) => s.ok) ? "" : " WRONG"}`;
    });
    console.log(`filtered by ${filters}: slowest ${slowest.join(", ")}`);
  }
  for (const target of targets) {
    const t = report.targets[target];
    console.log(
      `${target}: import ${t.import.eventsPerSecond} events/s, server ${t.import.serverUsPerEvent.toFixed(1)} µs/event, server peak RSS ${t.import.peakRssMiB} MiB` +
        (target === "cluster"
          ? `, ClickHouse ${((t.import.clickhouseMs * 1000) / t.import.accepted).toFixed(1)} µs/event`
          : "") +
        `; all answers checked: ${t.stats.stats.every((s) => s.ok)}; server RSS max ${Math.round((t.stats.rss?.maxBytes ?? 0) / 2 ** 20)} MiB` +
        (t.rows
          ? `; rows: ${t.rows.events} events, ${t.rows.rowStats} row_stats, ${t.rows.visitorCounts} visitor_counts`
          : ""),
    );
  }
  if (report.sameAnswers) {
    console.log(
      `same answers on both: ${report.sameAnswers.ok ? "yes" : `NO (${report.sameAnswers.differing.join(", ")})`}`,
    );
  }
}
