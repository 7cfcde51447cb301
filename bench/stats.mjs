// The statistics benchmark: for websites of each size (1M, 10M, 100M events by default),
// how fast the server answers every statistic over a 30-day window, how much memory it
// holds while answering, and how large the event store is on disk.
//
//   npm run build
//   node bench/stats.mjs [--sizes 1000000,10000000,100000000] [--seed 1] [--keep] [--zone Z] [--end ISO]
//
// For each size, in a fresh data directory:
//   1. a user (`users create`, the API key is the last line it prints) and a website
//      (a server started for this alone, POST /api/v1/websites, SIGTERM);
//   2. the events seeded straight into the store through the product's write path
//      (stats-seed.mjs: DuckDbEventStore.insert in batches of 50,000, values made by the
//      product's enrichment modules), which also writes the expected answers;
//   3. the server started on one core (`taskset -c 1`), the machine left to quieten, then
//      stats-query.mjs on the other core: per statistic a warm-up and 5 timed requests
//      (median kept), every answer checked against the expected answers, the server's
//      VmRSS sampled every 50 ms; SIGTERM;
//      then the same for each filter set of `--filters` (`|` between sets; each request
//      carries it, each answer checked to be a page of positive counts);
//   4. the size of events.duckdb (+ WAL) after the server stopped, and (store-stats.mjs)
//      where the bytes go;
//   5. the data directory removed (unless --keep).
// `--zone` is the website's time zone (America/New_York by default: the statistics' days
// and hours are local, and a window holds a change of offset when it spans one).
// Then a table of every figure with its target. `--profile NAME` adds, for each size, a
// CPU profile of the server (`node --cpu-prof`) answering that statistic `--profile-runs`
// times. Progress goes to standard error, the report to standard output (`--json`).

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  BENCH_DIR,
  CLI,
  createUser,
  createWebsite,
  lastJsonLine,
  ROOT_DIR,
  startProduct,
  stop,
  waitQuiet,
} from "./processes.mjs";
import { formatProfile, summariseProfile } from "./profile-summary.mjs";
import { storeStats } from "./store-stats.mjs";

const { values: options } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000000,10000000,100000000" },
    seed: { type: "string", default: "1" },
    keep: { type: "boolean", default: false },
    runs: { type: "string", default: "5" },
    batch: { type: "string", default: "50000" },
    days: { type: "string", default: "30" },
    // The seeded days' end (an ISO instant; stats-seed.mjs's default: the UTC midnight two
    // days ago). Tomorrow's UTC midnight seeds today too, open on the server as on a live one.
    end: { type: "string" },
    zone: { type: "string", default: "America/New_York" },
    "server-cpu": { type: "string", default: "1" },
    "client-cpu": { type: "string", default: "0" },
    dir: { type: "string", default: os.tmpdir() },
    "skip-store-stats": { type: "boolean", default: false },
    profile: { type: "string", default: "" },
    "profile-runs": { type: "string", default: "30" },
    quiet: { type: "string", default: "20" },
    json: { type: "boolean", default: false },
    // Selective and broad, on numbered text, places and a contains, and two at once.
    filters: {
      type: "string",
      default:
        "page==/pricing|country==US:United States|browser!=Chrome|referrer~google|page~/docs;device==mobile",
    },
  },
});
const filterSets = options.filters.split("|").filter(Boolean);

const sizes = options.sizes.split(",").map((size) => Number(size.replace(/_/g, "")));
if (sizes.some((size) => !Number.isInteger(size) || size < 1000)) {
  console.error("--sizes: a comma-separated list of event counts (each at least 1000)");
  process.exit(2);
}
const serverCpu = options["server-cpu"] === "none" ? null : options["server-cpu"];
const clientCpu = options["client-cpu"] === "none" ? null : options["client-cpu"];

/** Targets of the issue: latency by size, growth from the smallest to the largest, disk, memory. */
const TARGETS = {
  latencyMs: (size) => (size <= 1_000_000 ? 50 : size <= 10_000_000 ? 100 : 250),
  growth: 2,
  diskBytes: 2_000_000_000, // for 100M events
  diskAt: 100_000_000,
  rssBytes: 300_000_000,
  filteredMs: (size) => (size <= 10_000_000 ? 150 : 1000),
};

const log = (message) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const mb = (bytes) => (bytes === null || bytes === undefined ? null : Math.round(bytes / 1e5) / 10);
const sizeOf = (file) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const label = (size) =>
  size >= 1e6 && size % 1e6 === 0
    ? `${size / 1e6}M`
    : size >= 1e3 && size % 1e3 === 0
      ? `${size / 1e3}k`
      : `${size}`;
const verdict = (ok) => (ok ? "pass" : "FAIL");
const running = new Set();

function machine() {
  const git = (args) => {
    try {
      return fs.existsSync(path.join(ROOT_DIR, ".git"))
        ? String(execFileSync("git", args, { cwd: ROOT_DIR, stdio: "pipe" })).trim()
        : "";
    } catch {
      return "";
    }
  };
  return {
    date: new Date().toISOString(),
    cpuModel: os.cpus()[0]?.model ?? "?",
    cpus: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    commit: git(["log", "-1", "--format=%h"]),
    uncommittedSourceFiles: git(["status", "--porcelain", "--", "src"]).split("\n").filter(Boolean).length,
    built: fs.existsSync(CLI) ? fs.statSync(CLI).mtime.toISOString() : null,
  };
}

/** Free disk (bytes) where `dir` lives, and memory available (bytes). */
function resources(dir) {
  const stat = fs.statfsSync(dir);
  const meminfo = fs.readFileSync("/proc/meminfo", "utf8");
  const available = /MemAvailable:\s+(\d+) kB/.exec(meminfo);
  return {
    diskFreeBytes: stat.bavail * stat.bsize,
    memoryAvailableBytes: available ? Number(available[1]) * 1024 : os.freemem(),
  };
}

/** Runs `node args` with live standard error (progress) and returns the last JSON line of its output. */
function runNode(args, { cpu = null, env = {} } = {}) {
  const argv =
    cpu === null ? [process.execPath, ...args] : ["taskset", "-c", String(cpu), process.execPath, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: ROOT_DIR,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    running.add(child);
    const out = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      running.delete(child);
      const stdout = Buffer.concat(out).toString();
      if (code === 0) resolve(lastJsonLine(stdout));
      else reject(new Error(`${argv.slice(0, 4).join(" ")} ... exited with ${code}: ${stdout.slice(-1000)}`));
    });
  });
}

/** Starts the product's server pinned to the server core; remembers it for clean-up. */
async function startServer(dataDir, logFile, nodeArgs = []) {
  const began = Date.now();
  const server = await startProduct({ dataDir, cpu: serverCpu, log: logFile, nodeArgs });
  running.add(server.child);
  return { ...server, readyMs: Date.now() - began };
}

async function stopServer(server) {
  const result = await stop(server.child);
  running.delete(server.child);
  return result;
}

async function measureSize(size) {
  const before = resources(options.dir);
  log(
    `=== ${label(size)} events: ${mb(before.diskFreeBytes)} MB free disk in ${options.dir}, ${mb(before.memoryAvailableBytes)} MB memory available`,
  );
  // The store takes well under 100 B/event; the per-table copies of store-stats about as much again.
  const needed = size * 60 + 1e9;
  if (before.diskFreeBytes < needed) {
    throw new Error(
      `${label(size)} needs about ${mb(needed)} MB of free disk, ${mb(before.diskFreeBytes)} MB free`,
    );
  }
  const dataDir = fs.mkdtempSync(path.join(options.dir, `analytics-stats-${label(size)}-`));
  const logFile = path.join(dataDir, "server.log");
  const result = { size, dataDir, resources: before };
  try {
    // 1. A user and a website.
    const key = await createUser(dataDir);
    const setup = await startServer(dataDir, logFile);
    const websiteId = await createWebsite(setup.url, key, "bench.example", options.zone);
    await stopServer(setup);
    log(`website ${websiteId} created`);
    // A kept store can be queried again later (stats-query.mjs --key "$(cat DIR/api-key)").
    if (options.keep) fs.writeFileSync(path.join(dataDir, "api-key"), `${key}\n`, { mode: 0o600 });

    // 2. Seeding.
    const expectedFile = path.join(dataDir, "expected.json");
    const heapMiB = Math.max(
      4096,
      Math.min(Math.floor((before.memoryAvailableBytes / 2 ** 20) * 0.75), 2048 + size / 5000),
    );
    log(`seeding ${size} events (heap limit ${heapMiB} MiB)`);
    result.seed = await runNode([
      `--max-old-space-size=${Math.round(heapMiB)}`,
      // A young generation that holds a whole batch: fewer objects promoted, fewer full GCs.
      "--max-semi-space-size=128",
      path.join(BENCH_DIR, "stats-seed.mjs"),
      "--data-dir",
      dataDir,
      "--website-id",
      String(websiteId),
      "--events",
      String(size),
      "--expected",
      expectedFile,
      "--seed",
      options.seed,
      "--batch",
      options.batch,
      "--days",
      options.days,
      ...(options.end ? ["--end", options.end] : []),
      "--zone",
      options.zone,
    ]);
    const seeded = result.seed;
    log(
      `seeded ${seeded.events} events in ${seeded.seconds} s (${seeded.eventsPerSecond}/s; insert alone ${seeded.insertEventsPerSecond}/s), days ${seeded.from} .. ${seeded.to}`,
    );
    result.seededFileBytes = sizeOf(path.join(dataDir, "events.duckdb"));

    // 3. Queries.
    const server = await startServer(dataDir, logFile);
    result.serverReadyMs = server.readyMs;
    log(`server on CPU ${serverCpu ?? "any"} ready in ${server.readyMs} ms (pid ${server.child.pid})`);
    result.quiet = await waitQuiet({ maxBusyPct: Number(options.quiet), timeoutMs: 120_000 });
    const query = (extra) =>
      runNode(
        [
          path.join(BENCH_DIR, "stats-query.mjs"),
          "--url",
          server.url,
          "--key",
          key,
          "--website-id",
          String(websiteId),
          "--from",
          seeded.from,
          "--to",
          seeded.to,
          "--server-pid",
          String(server.child.pid),
          "--runs",
          options.runs,
          ...extra,
        ],
        { cpu: clientCpu },
      );
    let queried;
    result.filtered = [];
    try {
      queried = await query(["--expected", expectedFile]);
      for (const filters of filterSets) {
        const answered = await query(["--filters", filters]);
        const worst = answered.stats.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
        log(`  filtered by ${filters}: slowest ${worst.name} ${worst.medianMs} ms`);
        result.filtered.push({ filters, queries: answered });
      }
    } finally {
      result.stop = await stopServer(server);
    }
    result.queries = queried;
    for (const stat of queried.stats) {
      log(
        `  ${stat.name.padEnd(16)} median ${stat.medianMs} ms (${stat.ms.join(", ")}), warm-up ${stat.warmupMs} ms, ${stat.total} values${stat.ok ? "" : `; WRONG: ${stat.problems.join("; ")}`}`,
      );
    }
    log(
      `  server RSS while answering: max ${mb(queried.rss.maxBytes)} MB; SIGTERM to exit ${result.stop.ms} ms, code ${result.stop.code}`,
    );

    // 4. Size on disk.
    const file = path.join(dataDir, "events.duckdb");
    result.fileBytes = sizeOf(file);
    result.walBytes = sizeOf(`${file}.wal`);
    result.diskBytes = result.fileBytes + result.walBytes;
    result.bytesPerEvent = Math.round((result.diskBytes / seeded.events) * 100) / 100;
    log(`  events.duckdb ${result.fileBytes} B + WAL ${result.walBytes} B = ${result.bytesPerEvent} B/event`);
    if (!options["skip-store-stats"]) {
      log("  store breakdown (store-stats)");
      result.store = await storeStats(dataDir);
    }

    // Optional: where a slow statistic's time goes.
    if (options.profile) result.profile = await profileSize(dataDir, logFile, key, websiteId, seeded);
  } finally {
    if (options.keep) log(`kept ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return result;
}

async function profileSize(dataDir, logFile, key, websiteId, seeded) {
  const dir = fs.mkdtempSync(path.join(dataDir, "profile-"));
  const server = await startServer(dataDir, logFile, [
    "--cpu-prof",
    "--cpu-prof-dir",
    dir,
    "--cpu-prof-interval",
    "200",
  ]);
  const profiles = {};
  try {
    for (const name of options.profile.split(",").filter(Boolean)) {
      log(`  profile: ${name} answered ${options["profile-runs"]} times under --cpu-prof`);
      profiles[name] = await runNode(
        [
          path.join(BENCH_DIR, "stats-query.mjs"),
          "--url",
          server.url,
          "--key",
          key,
          "--website-id",
          String(websiteId),
          "--from",
          seeded.from,
          "--to",
          seeded.to,
          "--names",
          name,
          "--runs",
          options["profile-runs"],
        ],
        { cpu: clientCpu },
      );
    }
  } finally {
    await stopServer(server);
  }
  const file = fs.readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  return { queries: profiles, summary: file ? summariseProfile(path.join(dir, file), 20) : null };
}

// ---------------------------------------------------------------------------------------
// The report

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row) => `| ${row.map((cell, i) => String(cell).padEnd(widths[i])).join(" | ")} |`;
  return [
    line(rows[0]),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.slice(1).map(line),
  ].join("\n");
}

function report(results) {
  const names = results[0]?.queries.stats.map((stat) => stat.name) ?? [];
  const smallest = results[0];
  const largest = results.at(-1);
  const growth = results.length > 1;
  const lines = [];

  // Per statistic, per size: the median.
  const header = ["Statistic", ...results.map((r) => `${label(r.size)} median ms`)];
  if (growth) header.push(`${label(largest.size)} / ${label(smallest.size)}`);
  const perStat = [header];
  const ratios = [];
  for (const name of names) {
    const medians = results.map((r) => r.queries.stats.find((stat) => stat.name === name));
    const row = [name, ...medians.map((stat) => `${stat.medianMs}${stat.ok ? "" : " WRONG"}`)];
    if (growth) {
      const ratio = Math.round((medians.at(-1).medianMs / medians[0].medianMs) * 100) / 100;
      ratios.push(ratio);
      row.push(ratio);
    }
    perStat.push(row);
  }
  lines.push(table(perStat), "");

  // Per statistic, per filter set, at the largest size: the median.
  if (largest?.filtered?.length) {
    const filtered = [["Statistic", ...largest.filtered.map(({ filters }) => `\`${filters}\``)]];
    for (const name of names) {
      filtered.push([
        name,
        ...largest.filtered.map(({ queries }) => {
          const stat = queries.stats.find((candidate) => candidate.name === name);
          return stat ? `${stat.medianMs}${stat.ok ? "" : " WRONG"}` : "-";
        }),
      ]);
    }
    lines.push(`Filtered, ${label(largest.size)}, median ms:`, "", table(filtered), "");
  }

  // Per size: every figure with its target.
  const summary = [["Figure", "Size", "Value", "Target", "Result"]];
  for (const r of results) {
    const worst = r.queries.stats.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    const wrong = r.queries.stats.filter((stat) => !stat.ok);
    const target = TARGETS.latencyMs(r.size);
    summary.push([
      "Slowest statistic, median of 5 (30 days)",
      label(r.size),
      `${worst.medianMs} ms (${worst.name})`,
      `<= ${target} ms`,
      verdict(worst.medianMs <= target),
    ]);
    summary.push([
      "Answers right (200, data, counts = seeded)",
      label(r.size),
      wrong.length === 0
        ? `${r.queries.stats.length} of ${r.queries.stats.length}`
        : `wrong: ${wrong.map((s) => s.name).join(", ")}`,
      "all",
      verdict(wrong.length === 0),
    ]);
    summary.push([
      "Server RSS while answering (max of 50 ms samples)",
      label(r.size),
      `${mb(r.queries.rss.maxBytes)} MB`,
      `< ${mb(TARGETS.rssBytes)} MB`,
      verdict(r.queries.rss.maxBytes < TARGETS.rssBytes),
    ]);
    for (const { filters, queries } of r.filtered) {
      const slowest = queries.stats.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
      const bad = queries.stats.filter((stat) => !stat.ok);
      summary.push([
        `Slowest statistic filtered by ${filters}${bad.length ? ` (WRONG: ${bad.map((stat) => stat.name).join(", ")})` : ""}`,
        label(r.size),
        `${slowest.medianMs} ms (${slowest.name})`,
        `<= ${TARGETS.filteredMs(r.size)} ms`,
        verdict(slowest.medianMs <= TARGETS.filteredMs(r.size) && bad.length === 0),
      ]);
    }
    const diskTarget = r.size >= TARGETS.diskAt;
    summary.push([
      "events.duckdb + WAL after SIGTERM",
      label(r.size),
      `${mb(r.diskBytes)} MB (${r.bytesPerEvent} B/event)`,
      diskTarget
        ? `<= ${mb(TARGETS.diskBytes)} MB`
        : `(<= ${mb((TARGETS.diskBytes * r.size) / TARGETS.diskAt)} MB pro rata)`,
      diskTarget ? verdict(r.diskBytes <= TARGETS.diskBytes) : "-",
    ]);
  }
  if (growth) {
    const worst = Math.max(...ratios);
    summary.push([
      "Latency growth, max over statistics of median ratio",
      `${label(largest.size)} / ${label(smallest.size)}`,
      `${worst} (${names[ratios.indexOf(worst)]})`,
      `<= ${TARGETS.growth}`,
      verdict(worst <= TARGETS.growth),
    ]);
  }
  lines.push(table(summary), "");

  for (const r of results) {
    const s = r.seed;
    lines.push(
      `${label(r.size)}: seeded ${s.events} events (${s.pageviews} pageviews, ${s.visits} visits, ${s.customEvents} custom events; ${s.visitorsSeen} of ${s.visitorPool} pool visitors seen, ${s.profiles} visitor profiles, ${s.skipped} skipped) over ${s.from} .. ${s.to} in ${s.seconds} s = ${s.eventsPerSecond} events/s (generating ${s.generateSeconds} s, store.insert ${s.insertSeconds} s = ${s.insertEventsPerSecond} events/s, fold ${s.foldSeconds} s, close ${s.closeSeconds} s; seeder peak RSS ${s.peakRssMiB} MiB)`,
      `  server ready in ${r.serverReadyMs} ms; machine quiet before queries: ${r.quiet.quiet} (${r.quiet.busyPct}% busy); queries ${r.queries.seconds} s; RSS before ${mb(r.queries.rss.beforeBytes)} MB, max ${mb(r.queries.rss.maxBytes)} MB over ${r.queries.rss.samples} samples, peak since start ${mb(r.queries.rss.peakSinceStartBytes)} MB; SIGTERM to exit ${r.stop.ms} ms, code ${r.stop.code}`,
      `  file ${r.fileBytes} B + WAL ${r.walBytes} B = ${r.bytesPerEvent} B/event (right after seeding: ${r.seededFileBytes} B)`,
    );
    if (r.store) {
      const st = r.store;
      lines.push(
        `  store: ${st.rows} rows; used blocks ${st.usedBytesPerEvent} B/event; by table ${Object.entries(
          st.breakdown.tables,
        )
          .map(([table, bytes]) => `${table} ${bytes} (${st.tableRows[table]} rows)`)
          .join(
            ", ",
          )}; indexes and metadata ${st.breakdown.indexesAndMetadata}; free blocks ${st.breakdown.freeBlocks}`,
        `  each table copied alone (empty file ${st.tableFiles.emptyFileBytes} B subtracted): ${Object.entries(
          st.tableFiles.tables,
        )
          .map(([table, copy]) => `${table} ${copy.bytes} B = ${copy.bytesPerEvent} B/event`)
          .join(", ")}`,
        `  columns of events (B/event): ${st.columns
          .map(
            (column) =>
              `${column.name} ${Math.round((column.bytes / st.rows) * 100) / 100}${column.compression.length ? ` (${column.compression.join("/")})` : ""}`,
          )
          .join(", ")}`,
      );
    }
    for (const stat of r.queries.stats) {
      if (!stat.ok) lines.push(`  ${stat.name} WRONG: ${stat.problems.join("; ")}`);
    }
    if (r.profile?.summary) {
      lines.push(
        `  profile (${Object.keys(r.profile.queries).join(", ")}):`,
        formatProfile(r.profile.summary),
      );
    }
  }
  return lines.join("\n");
}

async function main() {
  const result = { machine: machine(), options, sizes: [] };
  log(
    `${result.machine.cpuModel}, ${result.machine.cpus} CPUs, ${result.machine.memoryGiB} GiB, node ${result.machine.node}, commit ${result.machine.commit}`,
  );
  for (const size of sizes) {
    try {
      result.sizes.push(await measureSize(size));
    } catch (error) {
      // Report the sizes measured so far, then fail.
      result.failed = { size, error: String(error?.stack ?? error) };
      console.error(error);
      process.exitCode = 1;
      break;
    }
  }
  if (result.sizes.length === 0) return;
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else {
    if (result.failed)
      console.log(`${label(result.failed.size)} FAILED: ${result.failed.error.split("\n")[0]}`);
    console.log(
      `commit ${result.machine.commit} (${result.machine.uncommittedSourceFiles} uncommitted source files), built ${result.machine.built}; ${result.machine.cpuModel}, ${result.machine.cpus} CPUs, ${result.machine.memoryGiB} GiB, node ${result.machine.node}; server on CPU ${serverCpu ?? "any"}, client on CPU ${clientCpu ?? "any"}`,
    );
    console.log(report(result.sizes));
  }
}

const cleanUp = () => {
  for (const child of running) child.kill("SIGKILL");
};
process.once("SIGINT", () => {
  cleanUp();
  process.exit(130);
});

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  cleanUp();
}
