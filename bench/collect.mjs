// The collection benchmark, start to finish, in one temporary directory (removed at the end
// unless --keep). Servers run pinned to --server-cpu, load generators to --load-cpu.
//
//   npm run build && node bench/collect.mjs [options]
//
// A. Closed loop: the bare node:http baseline (bench/bare-server.mjs), the Fastify baseline
//    (bench/fastify-server.mjs) and the product's POST /api/event, all warmed up, then
//    measured in turn (--rounds times each, the order reversed every other round) with the
//    same load: wrk with bench/wrk-collect.lua if wrk is installed, else the closed loop of
//    bench/collect-load.mjs. Result: requests/s of each and the ratios. Then both baselines
//    under the open loop at --rate for --sweep-duration: their CPU per request and latency,
//    the floor the product's figures sit on.
// B. A fresh server: an open-loop warm-up, then the open loop at --rate for --open-duration
//    (latency from each request's scheduled instant; server CPU time per accepted event),
//    then shorter open loops at each of --sweep-rates (latency against load), then a bulk
//    import of --import-events through POST /api/v1/events with the server's threads moved
//    to --import-server-cpus (the issue asks for one core for collection only; the import
//    is the product on the machine, beside its load generator), then SIGTERM. The stopped store
//    is checkpointed and measured (bytes per event) and its row count checked against every
//    acknowledged event.
// C. With --profile SECONDS: two more servers under `node --cpu-prof`, one under the closed
//    loop for that long and one importing --profile-import events; the top frames of each.
//
// Options (defaults in brackets): --rounds [2] --warmup [5] s --closed-duration [15] s
// --connections [64] --rate [5000] --open-duration [20] s --sweep-rates [1000,2500]
// --sweep-duration [10] s --import-events [1000000]
// --import-batch [10000] --import-concurrency [2] --import-days [30]
// --import-server-cpus [0,1 ("same": stay on --server-cpu)] --server-cpu [1]
// --load-cpu [0] --loader [auto|wrk|node] --seed [1] --profile [0] --profile-import [200000]
// --quiet [20] --max-rest [50] --retries [2] --keep --json
//
// The machine may be shared: each measurement waits until the whole machine has used under
// --quiet % of one core for a second (at most two minutes), and is repeated (at most
// --retries more times) when everything else on the machine (kernel network work included)
// used more than --max-rest % of a core during it; the attempt least disturbed is reported.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  BENCH_DIR,
  CLI,
  cpuTimeMs,
  createUser,
  createWebsite,
  followCpu,
  lastJsonLine,
  machineBusyMs,
  peakRssMiB,
  ROOT_DIR,
  runCommand,
  sleep,
  startBaseline,
  startProduct,
  stop,
  threadCpuMs,
  waitQuiet,
} from "./processes.mjs";
import { formatProfile, summariseProfile } from "./profile-summary.mjs";
import { storeStats } from "./store-stats.mjs";

const TARGETS = {
  throughputRatio: 0.5,
  p99Ms: 10,
  cpuUsPerEvent: 100,
  importEventsPerSecond: 100_000,
  bytesPerEvent: 20,
};

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    warmup: { type: "string", default: "5" },
    "closed-duration": { type: "string", default: "15" },
    connections: { type: "string", default: "64" },
    rate: { type: "string", default: "5000" },
    "open-duration": { type: "string", default: "20" },
    "sweep-rates": { type: "string", default: "1000,2500" },
    "sweep-duration": { type: "string", default: "10" },
    "import-events": { type: "string", default: "1000000" },
    "import-batch": { type: "string", default: "10000" },
    "import-concurrency": { type: "string", default: "2" },
    "import-days": { type: "string", default: "30" },
    "import-server-cpus": { type: "string", default: "0,1" },
    "server-cpu": { type: "string", default: "1" },
    "load-cpu": { type: "string", default: "0" },
    loader: { type: "string", default: "auto" },
    seed: { type: "string", default: "1" },
    profile: { type: "string", default: "0" },
    "profile-import": { type: "string", default: "200000" },
    quiet: { type: "string", default: "20" },
    "max-rest": { type: "string", default: "50" },
    retries: { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const num = (name) => Number(options[name]);
const serverCpu = options["server-cpu"] === "none" ? null : options["server-cpu"];
const loadCpu = options["load-cpu"] === "none" ? null : options["load-cpu"];
const seed = num("seed");
const hasWrk = (() => {
  try {
    execFileSync("wrk", ["-v"], { stdio: "ignore" });
    return true;
  } catch (error) {
    return error.code !== "ENOENT"; // `wrk -v` exits non-zero but exists
  }
})();
const loader = options.loader === "auto" ? (hasWrk ? "wrk" : "node") : options.loader;
if (loader === "wrk" && !hasWrk)
  throw new Error("--loader wrk: wrk is not installed (apt-get install -y wrk)");
if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);

const log = (...parts) => {
  if (!options.json) console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...parts);
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-bench-"));
const logs = path.join(tmp, "logs");
fs.mkdirSync(logs);
const running = new Set();
const track = (server) => {
  running.add(server.child);
  server.child.exited.then(() => running.delete(server.child));
  return server;
};
const stopTracked = (server) => stop(server.child);

const node = (script, args, onStart) =>
  runCommand(process.execPath, [path.join(BENCH_DIR, script), ...args], { cpu: loadCpu, onStart });

/**
 * Runs `run(onStart)` (a load generator) while measuring, over the same wall time, the CPU
 * time of the server, of the generator, and of the rest of the machine (kernel network
 * work not charged to a process, and anything else running): { stdout, wall, cpu }.
 */
async function measure(serverPid, run, settleMs = 0) {
  const server0 = cpuTimeMs(serverPid);
  const threads0 = threadCpuMs(serverPid);
  const machine0 = machineBusyMs();
  const began = Date.now();
  let loadCpuMs = () => 0;
  const stdout = await run((child) => {
    loadCpuMs = followCpu(child.pid);
  });
  if (settleMs > 0) await sleep(settleMs);
  const wall = (Date.now() - began) / 1000;
  const server = cpuTimeMs(serverPid) - server0;
  const threads = threadCpuMs(serverPid);
  const load = loadCpuMs();
  const rest = machineBusyMs() - machine0 - server - load;
  const pct = (ms) => round1(ms / 10 / wall);
  return {
    stdout,
    wall,
    cpu: {
      serverMs: server,
      serverMainMs: threads.main - threads0.main,
      serverOtherThreadsMs: threads.others - threads0.others,
      serverPct: pct(server),
      loadPct: pct(load),
      restPct: pct(rest),
    },
  };
}

/** One closed-loop measurement against `server` for `seconds`, with the CPU use. */
async function closedLoad(server, seconds, hitsFile) {
  if (loader === "wrk") {
    const { stdout, cpu } = await measure(server.child.pid, (onStart) =>
      runCommand(
        "wrk",
        [
          "-t1",
          `-c${num("connections")}`,
          `-d${seconds}s`,
          "--timeout",
          "10s",
          "-s",
          path.join(BENCH_DIR, "wrk-collect.lua"),
          server.url,
          "--",
          hitsFile,
        ],
        { cpu: loadCpu, onStart },
      ),
    );
    const raw = lastJsonLine(stdout, "RESULT ");
    const wall = raw.durationUs / 1e6;
    const errors = Object.values(raw.errors).reduce((a, b) => a + b, 0);
    return {
      completed: raw.requests,
      accepted: raw.accepted,
      dropped: raw.dropped,
      failures: raw.other + errors,
      seconds: wall,
      requestsPerSecond: Math.round(raw.requests / wall),
      latencyMs: Object.fromEntries(Object.entries(raw.latencyUs).map(([k, v]) => [k, Math.round(v) / 1000])),
      cpu,
    };
  }
  const { stdout, cpu } = await measure(server.child.pid, (onStart) =>
    node(
      "collect-load.mjs",
      [
        "closed",
        "--url",
        server.url,
        "--duration",
        String(seconds),
        "--connections",
        String(num("connections")),
        "--seed",
        String(seed),
      ],
      onStart,
    ),
  );
  const raw = lastJsonLine(stdout);
  return {
    completed: raw.completed,
    accepted: raw.accepted,
    dropped: sum(raw.dropped),
    failures: sum(raw.statuses) + sum(raw.errors),
    seconds: raw.seconds,
    requestsPerSecond: raw.requestsPerSecond,
    latencyMs: raw.latencyMs,
    cpu,
  };
}

/**
 * Runs a measurement once the machine is quiet, and again (up to --retries more times) when
 * the rest of the machine used more than --max-rest % of a core during it: the other load
 * would distort the figures. Keeps the attempt with the least other load, and the events
 * every attempt got accepted (they are all in the store).
 */
async function steady(label, run) {
  const attempts = [];
  for (let attempt = 0; attempt <= num("retries"); attempt++) {
    const quiet = await waitQuiet({ maxBusyPct: num("quiet"), timeoutMs: 120_000 });
    const result = await run();
    attempts.push({ ...result, quietBefore: quiet });
    if (result.cpu.restPct <= num("max-rest")) break;
    log(
      `   ${label}: the rest of the machine used ${result.cpu.restPct}% of a core meanwhile; measuring again`,
    );
  }
  const best = attempts.reduce((a, b) => (b.cpu.restPct < a.cpu.restPct ? b : a));
  return {
    ...best,
    attempts: attempts.length,
    acceptedInAllAttempts: attempts.reduce((total, a) => total + a.accepted, 0),
  };
}

const SERVERS = ["bare", "fastify", "product"];

async function phaseClosed() {
  const dataDir = path.join(tmp, "closed");
  const hitsFile = path.join(tmp, "hits.tsv");
  await node("collect-load.mjs", ["wrk-file", "--out", hitsFile, "--hits", "20000", "--seed", String(seed)]);
  const key = await createUser(dataDir);
  const targets = {
    bare: track(
      await startBaseline({ script: "bare-server.mjs", cpu: serverCpu, log: path.join(logs, "bare.log") }),
    ),
    fastify: track(
      await startBaseline({
        script: "fastify-server.mjs",
        cpu: serverCpu,
        log: path.join(logs, "fastify.log"),
      }),
    ),
    product: track(await startProduct({ dataDir, cpu: serverCpu, log: path.join(logs, "closed.log") })),
  };
  await createWebsite(targets.product.url, key);
  const rounds = [];
  let acknowledged = 0;
  log(`A. closed loop (${loader}, ${num("connections")} connections): warm-up ${num("warmup")} s each`);
  for (const name of SERVERS) {
    const warm = await closedLoad(targets[name], num("warmup"), hitsFile);
    if (name === "product") acknowledged += warm.accepted;
  }
  for (let round = 1; round <= num("rounds"); round++) {
    const order = round % 2 === 1 ? SERVERS : [...SERVERS].reverse();
    const measured = {};
    for (const name of order) {
      const m = await steady(`round ${round} ${name}`, () =>
        closedLoad(targets[name], num("closed-duration"), hitsFile),
      );
      measured[name] = m;
      log(
        `   round ${round} ${name.padEnd(7)} ${m.requestsPerSecond} req/s, p99 ${m.latencyMs.p99} ms, CPU server ${m.cpu.serverPct}% load ${m.cpu.loadPct}% rest ${m.cpu.restPct}%`,
      );
    }
    acknowledged += measured.product.acceptedInAllAttempts;
    rounds.push({
      round,
      ...measured,
      ratio: round3(measured.product.requestsPerSecond / measured.bare.requestsPerSecond),
      fastifyRatio: round3(measured.fastify.requestsPerSecond / measured.bare.requestsPerSecond),
      productToFastify: round3(measured.product.requestsPerSecond / measured.fastify.requestsPerSecond),
    });
  }

  // The baselines under the open loop's rate: the CPU a request costs on this machine, and
  // the latency floor of the generator and the network stack, without any ingest work.
  const references = [];
  for (const name of ["bare", "fastify"]) {
    const reference = await steady(`${name} at ${num("rate")}/s`, async () => {
      const run = await measure(
        targets[name].child.pid,
        (onStart) =>
          node(
            "collect-load.mjs",
            [
              "open",
              "--url",
              targets[name].url,
              "--rate",
              String(num("rate")),
              "--duration",
              String(num("sweep-duration")),
              "--seed",
              String(seed),
            ],
            onStart,
          ).then((stdout) => lastJsonLine(stdout)),
        200,
      );
      return { ...run.stdout, cpu: run.cpu };
    });
    references.push({
      server: name,
      ...pickOpen(reference),
      cpu: reference.cpu,
      cpuUsPerRequest: round1((reference.cpu.serverMs * 1000) / reference.sent),
    });
    log(
      `   ${name} at ${num("rate")}/s: p50 ${reference.latencyMs.p50} ms, p99 ${reference.latencyMs.p99} ms, ${references.at(-1).cpuUsPerRequest} µs CPU/request`,
    );
  }

  await stopTracked(targets.bare);
  await stopTracked(targets.fastify);
  const stopped = await stopTracked(targets.product);
  const store = await storeStats(dataDir);
  const mean = (name) => rounds.reduce((total, r) => total + r[name].requestsPerSecond, 0) / rounds.length;
  return {
    loader,
    connections: num("connections"),
    seconds: num("closed-duration"),
    rounds,
    bareMean: Math.round(mean("bare")),
    fastifyMean: Math.round(mean("fastify")),
    productMean: Math.round(mean("product")),
    ratio: round3(mean("product") / mean("bare")),
    fastifyRatio: round3(mean("fastify") / mean("bare")),
    productToFastify: round3(mean("product") / mean("fastify")),
    references,
    exit: stopped,
    // wrk abandons the requests in flight when it stops, so the store may hold up to
    // `connections` more rows per run than the answers counted.
    store: { rows: store.rows, acknowledged },
  };
}

async function phaseOpenAndImport() {
  const dataDir = path.join(tmp, "store");
  const key = await createUser(dataDir);
  const server = track(await startProduct({ dataDir, cpu: serverCpu, log: path.join(logs, "store.log") }));
  const websiteId = await createWebsite(server.url, key);
  const pid = server.child.pid;
  const open = (rate, duration, runSeed, onStart) =>
    node(
      "collect-load.mjs",
      [
        "open",
        "--url",
        server.url,
        "--rate",
        String(rate),
        "--duration",
        String(duration),
        "--seed",
        String(runSeed),
      ],
      onStart,
    ).then((stdout) => lastJsonLine(stdout));

  log(`B. open loop: warm-up at ${Math.round(num("rate") / 5)}/s for 3 s`);
  const warm = await open(Math.round(num("rate") / 5), 3, seed + 100);
  await sleep(1500); // the warm-up's last flush
  log(`   open loop at ${num("rate")}/s for ${num("open-duration")} s`);
  let openSeed = seed;
  const measured = await steady("open loop", async () => {
    // The last flush of these events (up to a second later) belongs to them.
    const run = await measure(
      pid,
      (onStart) => open(num("rate"), num("open-duration"), openSeed++, onStart),
      1200,
    );
    return { ...run.stdout, cpu: run.cpu };
  });
  const cpuUsPerEvent = round1((measured.cpu.serverMs * 1000) / measured.accepted);
  log(
    `   p50 ${measured.latencyMs.p50} ms, p99 ${measured.latencyMs.p99} ms, max ${measured.latencyMs.max} ms, ${cpuUsPerEvent} µs CPU/event, CPU server ${measured.cpu.serverPct}% load ${measured.cpu.loadPct}% rest ${measured.cpu.restPct}%`,
  );

  const sweep = [];
  for (const rate of options["sweep-rates"].split(",").filter(Boolean).map(Number)) {
    const point = await steady(`open loop at ${rate}/s`, async () => {
      const run = await measure(
        pid,
        (onStart) => open(rate, num("sweep-duration"), openSeed++, onStart),
        1200,
      );
      return { ...run.stdout, cpu: run.cpu };
    });
    sweep.push({
      rate,
      ...pickOpen(point),
      attempts: point.attempts,
      acceptedInAllAttempts: point.acceptedInAllAttempts,
      cpu: point.cpu,
      cpuUsPerEvent: round1((point.cpu.serverMs * 1000) / point.accepted),
    });
    log(
      `   open loop at ${rate}/s for ${num("sweep-duration")} s: p50 ${point.latencyMs.p50} ms, p99 ${point.latencyMs.p99} ms, max ${point.latencyMs.max} ms, ${sweep.at(-1).cpuUsPerEvent} µs CPU/event`,
    );
  }

  const importCpus = options["import-server-cpus"] === "same" ? serverCpu : options["import-server-cpus"];
  if (importCpus !== serverCpu && importCpus !== null) {
    // Every thread of the running server (DuckDB keeps the thread count it started with).
    execFileSync("taskset", ["-a", "-p", "-c", importCpus, String(pid)], { stdio: "ignore" });
  }
  log(
    `   import: ${num("import-events")} events, batches of ${num("import-batch")}, ${num("import-concurrency")} in flight, server on CPUs ${importCpus ?? "any"}`,
  );
  let importSeed = seed + 1;
  const imported = await steady("import", async () => {
    const run = await measure(pid, (onStart) =>
      node(
        "import-load.mjs",
        [
          "--url",
          server.url,
          "--key",
          key,
          "--website-id",
          String(websiteId),
          "--events",
          String(num("import-events")),
          "--batch",
          String(num("import-batch")),
          "--concurrency",
          String(num("import-concurrency")),
          "--days",
          String(num("import-days")),
          "--seed",
          String(importSeed++),
          // Every body built before the clock starts: the generator's JSON work is not the server's.
          "--prebuild",
        ],
        onStart,
      ),
    );
    return { ...lastJsonLine(run.stdout), cpu: run.cpu };
  });
  log(
    `   ${imported.eventsPerSecond} events/s over ${imported.seconds} s, CPU server ${imported.cpu.serverPct}% load ${imported.cpu.loadPct}% rest ${imported.cpu.restPct}%`,
  );
  const peakRss = peakRssMiB(pid);
  const stopped = await stopTracked(server);
  const store = await storeStats(dataDir);
  const acknowledged =
    warm.accepted +
    measured.acceptedInAllAttempts +
    sweep.reduce((total, point) => total + point.acceptedInAllAttempts, 0) +
    imported.acceptedInAllAttempts;
  // Drops and failures of the attempts kept; any in a discarded attempt shows as a row
  // count differing from the events acknowledged.
  const opens = [warm, measured, ...sweep];
  const drops =
    opens.reduce((total, run) => total + sum(run.dropped) + sum(run.statuses), 0) + sum(imported.dropped);
  const failures =
    opens.reduce((total, run) => total + sum(run.errors) + run.unanswered, 0) + imported.failures.length;
  return {
    warmup: pickOpen(warm),
    open: {
      ...pickOpen(measured),
      attempts: measured.attempts,
      cpu: measured.cpu,
      cpuUsPerEvent,
    },
    sweep,
    import: {
      ...imported,
      serverCpus: importCpus,
      cpuUsPerEvent: round1((imported.cpu.serverMs * 1000) / imported.accepted),
    },
    peakRssMiB: peakRss,
    exit: stopped,
    store,
    integrity: {
      acknowledged,
      rows: store.rows,
      drops,
      failures,
      ok: store.rows === acknowledged && drops === 0 && failures === 0 && stopped.code === 0,
    },
  };
}

async function phaseProfile() {
  const seconds = num("profile");
  const profiles = path.join(tmp, "profiles");
  const results = {};
  for (const kind of ["collect", "import"]) {
    const dir = path.join(profiles, kind);
    const dataDir = path.join(tmp, `profile-${kind}`);
    const key = await createUser(dataDir);
    const server = track(
      await startProduct({
        dataDir,
        cpu: serverCpu,
        log: path.join(logs, `profile-${kind}.log`),
        nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "500"],
      }),
    );
    const websiteId = await createWebsite(server.url, key);
    if (kind === "collect") {
      log(`C. profile: closed loop for ${seconds} s under --cpu-prof`);
      const hitsFile = path.join(tmp, "hits.tsv");
      await closedLoad(server, Math.min(5, seconds), hitsFile);
      results.collectLoad = await closedLoad(server, seconds, hitsFile);
    } else {
      log(`   profile: import of ${num("profile-import")} events under --cpu-prof`);
      results.importLoad = lastJsonLine(
        await node("import-load.mjs", [
          "--url",
          server.url,
          "--key",
          key,
          "--website-id",
          String(websiteId),
          "--events",
          String(num("profile-import")),
          "--batch",
          String(num("import-batch")),
          "--concurrency",
          String(num("import-concurrency")),
          "--seed",
          String(seed + 2),
        ]),
      );
    }
    await stopTracked(server);
    const file = fs.readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
    results[kind] = summariseProfile(path.join(dir, file), 20);
  }
  return results;
}

function pickOpen(result) {
  const {
    sent,
    accepted,
    dropped,
    statuses,
    errors,
    unanswered,
    reconnects,
    achievedRate,
    latencyMs,
    sendLagMs,
    maxQueued,
    slow,
  } = result;
  return {
    sent,
    accepted,
    dropped,
    statuses,
    errors,
    unanswered,
    reconnects,
    achievedRate,
    latencyMs,
    sendLagMs,
    maxQueued,
    slow,
  };
}

const sum = (record) => Object.values(record ?? {}).reduce((a, b) => a + b, 0);
const round1 = (value) => Math.round(value * 10) / 10;
const perEventUs = (ms, events) => round1((ms * 1000) / Math.max(1, events));
const round3 = (value) => Math.round(value * 1000) / 1000;
const verdict = (ok) => (ok ? "pass" : "FAIL");

/** The product measured: its commit, uncommitted changes to its sources, and when dist/ was built. */
function productVersion() {
  const git = (...args) => {
    try {
      return execFileSync("git", args, { cwd: ROOT_DIR, stdio: ["ignore", "pipe", "ignore"] })
        .toString()
        .trim();
    } catch {
      return null;
    }
  };
  const changed = git("status", "--porcelain", "--", "src", "package.json", "package-lock.json");
  return {
    commit: git("log", "-1", "--format=%h %s"),
    uncommittedSourceFiles: changed === null ? null : changed.split("\n").filter(Boolean).length,
    built: fs.statSync(CLI).mtime.toISOString(),
  };
}

function machine() {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  return {
    product: productVersion(),
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    cpuModel: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(" "),
    node: process.version,
    serverCpu,
    loadCpu,
  };
}

function table(report) {
  const { closed, stored } = report;
  const rows = [
    ["Figure", "Measured", "Target", "Result"],
    ...closed.rounds.map((r) => [
      `Closed loop round ${r.round}: product / bare req/s`,
      `${r.product.requestsPerSecond} / ${r.bare.requestsPerSecond} = ${r.ratio}`,
      `>= ${TARGETS.throughputRatio}`,
      verdict(r.ratio >= TARGETS.throughputRatio),
    ]),
    [
      "1. Throughput ratio (mean of rounds)",
      `${closed.productMean} / ${closed.bareMean} = ${closed.ratio}`,
      `>= ${TARGETS.throughputRatio}`,
      verdict(closed.ratio >= TARGETS.throughputRatio),
    ],
    [
      `2. Open loop ${stored.open.achievedRate}/s: p50 / p99 / max`,
      `${stored.open.latencyMs.p50} / ${stored.open.latencyMs.p99} / ${stored.open.latencyMs.max} ms`,
      `p99 < ${TARGETS.p99Ms} ms`,
      verdict(stored.open.latencyMs.p99 < TARGETS.p99Ms),
    ],
    [
      "3. Server CPU per event (open loop)",
      `${stored.open.cpuUsPerEvent} µs (${stored.open.cpu.serverPct}% of a core)`,
      `< ${TARGETS.cpuUsPerEvent} µs`,
      verdict(stored.open.cpuUsPerEvent < TARGETS.cpuUsPerEvent),
    ],
    [
      `4. Bulk import (${stored.import.accepted} events, server on CPUs ${stored.import.serverCpus ?? "any"})`,
      `${stored.import.eventsPerSecond} events/s`,
      `>= ${TARGETS.importEventsPerSecond}`,
      verdict(stored.import.eventsPerSecond >= TARGETS.importEventsPerSecond),
    ],
    [
      `5. Bytes per event (${stored.store.rows} rows)`,
      `${stored.store.bytesPerEvent} (file ${stored.store.fileBytes}, WAL ${stored.store.walBytes})`,
      `<= ${TARGETS.bytesPerEvent}`,
      verdict(stored.store.bytesPerEvent <= TARGETS.bytesPerEvent),
    ],
    [
      "6. Rows stored = events acknowledged",
      `${stored.integrity.rows} = ${stored.integrity.acknowledged}; drops ${stored.integrity.drops}, failures ${stored.integrity.failures}, exit ${stored.exit.code}`,
      "equal, 0, 0, 0",
      verdict(stored.integrity.ok),
    ],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row) => `| ${row.map((cell, i) => String(cell).padEnd(widths[i])).join(" | ")} |`;
  return [
    line(rows[0]),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.slice(1).map(line),
  ].join("\n");
}

function details(report) {
  const { closed, stored } = report;
  const lines = [
    `product: ${report.machine.product.commit}; ${report.machine.product.uncommittedSourceFiles} uncommitted source files; built ${report.machine.product.built}`,
    `machine: ${report.machine.cpuModel}, ${report.machine.cpus} CPUs, ${report.machine.memoryGiB} GiB, node ${report.machine.node}; server on CPU ${serverCpu ?? "any"}, load on CPU ${loadCpu ?? "any"}; load average ${report.machine.loadAverage} before, ${report.loadAverageAfter} after`,
    "CPU columns: % of one core over the run; rest = machine busy time not charged to the server or the generator (kernel network work, other processes)",
    `closed loop (${closed.loader}, ${closed.connections} connections, ${closed.seconds} s per run):`,
  ];
  for (const r of closed.rounds) {
    for (const name of SERVERS) {
      const m = r[name];
      lines.push(
        `  round ${r.round} ${name.padEnd(7)} ${m.requestsPerSecond} req/s, latency p50 ${m.latencyMs.p50} / p99 ${m.latencyMs.p99} ms, dropped ${m.dropped}, failures ${m.failures}; ${perEventUs(m.cpu.serverMs, m.completed)} µs CPU/request (main thread ${perEventUs(m.cpu.serverMainMs, m.completed)}); CPU: server ${m.cpu.serverPct}%, load ${m.cpu.loadPct}%, rest ${m.cpu.restPct}%; attempts ${m.attempts}`,
      );
    }
  }
  lines.push(
    `  means: bare ${closed.bareMean}, fastify ${closed.fastifyMean}, product ${closed.productMean} req/s; fastify / bare ${closed.fastifyRatio}, product / fastify ${closed.productToFastify}, product / bare ${closed.ratio}`,
    ...closed.references.map(
      (ref) =>
        `  ${ref.server} under the open loop at ${ref.achievedRate}/s: latency p50 ${ref.latencyMs.p50} / p99 ${ref.latencyMs.p99} / max ${ref.latencyMs.max} ms; ${ref.cpuUsPerRequest} µs CPU/request; CPU: server ${ref.cpu.serverPct}%, rest ${ref.cpu.restPct}%; over ${ref.slow.thresholdMs} ms: ${ref.slow.share}%`,
    ),
    `  closed-loop store: ${closed.store.rows} rows for ${closed.store.acknowledged} answers counted${closed.loader === "wrk" ? " (wrk abandons in-flight requests at its end)" : ""}, exit ${closed.exit.code}`,
    `open loop: sent ${stored.open.sent} at ${stored.open.achievedRate}/s, accepted ${stored.open.accepted}, latency p50 ${stored.open.latencyMs.p50} / p90 ${stored.open.latencyMs.p90} / p99 ${stored.open.latencyMs.p99} / p99.9 ${stored.open.latencyMs.p999} / max ${stored.open.latencyMs.max} ms; generator lag p99 ${stored.open.sendLagMs.p99} ms, max ${stored.open.sendLagMs.max} ms; at most ${stored.open.maxQueued} requests waited for a connection; ${stored.open.reconnects} requests went on a new connection (the server had closed the previous one, or might have, as idle); errors ${JSON.stringify(stored.open.errors)}, unanswered ${stored.open.unanswered}`,
    `  over ${stored.open.slow.thresholdMs} ms: ${stored.open.slow.requests} requests (${stored.open.slow.share}%) in ${stored.open.slow.windows} separate ${100} ms windows (${stored.open.slow.windowsPerSecond} per second)`,
    `  server CPU ${stored.open.cpu.serverMs} ms for ${stored.open.accepted} events = ${stored.open.cpuUsPerEvent} µs/event (main thread ${perEventUs(stored.open.cpu.serverMainMs, stored.open.accepted)}, other threads ${perEventUs(stored.open.cpu.serverOtherThreadsMs, stored.open.accepted)}); CPU: server ${stored.open.cpu.serverPct}%, load ${stored.open.cpu.loadPct}%, rest ${stored.open.cpu.restPct}%; attempts ${stored.open.attempts}`,
    ...stored.sweep.map(
      (point) =>
        `  at ${point.achievedRate}/s: latency p50 ${point.latencyMs.p50} / p90 ${point.latencyMs.p90} / p99 ${point.latencyMs.p99} / max ${point.latencyMs.max} ms; ${point.cpuUsPerEvent} µs/event; CPU: server ${point.cpu.serverPct}%, rest ${point.cpu.restPct}%; generator lag max ${point.sendLagMs.max} ms; over ${point.slow.thresholdMs} ms: ${point.slow.share}% in ${point.slow.windowsPerSecond} windows/s`,
    ),
    `import (server on CPUs ${stored.import.serverCpus ?? "any"}): ${stored.import.accepted} accepted in ${stored.import.requests} requests over ${stored.import.seconds} s = ${stored.import.eventsPerSecond} events/s; request p50 ${stored.import.requestMs.p50} ms, max ${stored.import.requestMs.max} ms; server CPU ${stored.import.cpuUsPerEvent} µs/event (main thread ${perEventUs(stored.import.cpu.serverMainMs, stored.import.accepted)}, other threads ${perEventUs(stored.import.cpu.serverOtherThreadsMs, stored.import.accepted)}); CPU: server ${stored.import.cpu.serverPct}%, load ${stored.import.cpu.loadPct}%, rest ${stored.import.cpu.restPct}%; attempts ${stored.import.attempts}; client build ${stored.import.clientBuildSeconds} s`,
    `store: ${stored.store.rows} rows, file ${stored.store.fileBytes} B + WAL ${stored.store.walBytes} B = ${stored.store.bytesPerEvent} B/event (used blocks ${stored.store.usedBytesPerEvent} B/event); server peak RSS ${stored.peakRssMiB} MiB; SIGTERM to exit ${stored.exit.ms} ms, code ${stored.exit.code}`,
    `  bytes per event by table: ${Object.entries(stored.store.breakdown.tables)
      .map(([table, bytes]) => `${table} ${bytes} (${stored.store.tableRows[table]} rows)`)
      .join(
        ", ",
      )}; indexes and metadata ${stored.store.breakdown.indexesAndMetadata}; free blocks ${stored.store.breakdown.freeBlocks}`,
    `  each table copied alone into a fresh file (empty file ${stored.store.tableFiles.emptyFileBytes} B, subtracted): ${Object.entries(
      stored.store.tableFiles.tables,
    )
      .map(([table, copy]) => `${table} ${copy.bytes} B = ${copy.bytesPerEvent} B/event`)
      .join(", ")}`,
    `  bytes per event by column of events: ${stored.store.columns
      .map(
        (column) =>
          `${column.name} ${Math.round((column.bytes / stored.store.rows) * 100) / 100}${column.compression.length ? ` (${column.compression.join("/")})` : ""}`,
      )
      .join(", ")}`,
  );
  return lines.join("\n");
}

async function main() {
  const report = { machine: machine(), options };
  log(`temporary directory ${tmp}`);
  report.closed = await phaseClosed();
  report.stored = await phaseOpenAndImport();
  if (num("profile") > 0) report.profile = await phaseProfile();
  report.loadAverageAfter = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");
  if (options.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(details(report));
    console.log();
    console.log(table(report));
    if (report.profile) {
      console.log();
      console.log(
        `profile, closed loop: ${report.profile.collectLoad.requestsPerSecond} req/s under the profiler`,
      );
      console.log(formatProfile(report.profile.collect));
      console.log(
        `profile, import: ${report.profile.importLoad.eventsPerSecond} events/s under the profiler`,
      );
      console.log(formatProfile(report.profile.import));
    }
  }
}

const cleanUp = async () => {
  for (const child of running) child.kill("SIGKILL");
  if (options.keep) log(`kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
};

process.once("SIGINT", async () => {
  await cleanUp();
  process.exit(130);
});

try {
  await main();
} catch (error) {
  console.error(error);
  for (const file of fs.existsSync(logs) ? fs.readdirSync(logs) : []) {
    const text = fs.readFileSync(path.join(logs, file), "utf8").trim();
    if (text) console.error(`--- ${file} (last lines)\n${text.split("\n").slice(-15).join("\n")}`);
  }
  process.exitCode = 1;
} finally {
  await cleanUp();
}
