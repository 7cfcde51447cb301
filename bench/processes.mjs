// Process plumbing shared by the benchmark runners: free ports, servers started on a chosen
// core, readiness, CPU time and peak memory read from /proc, clean stops, and the product's
// setup steps (a user and its API key, a website).

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = path.dirname(BENCH_DIR);
export const CLI = path.join(ROOT_DIR, "dist", "src", "cli", "main.js");

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * The node flags and the environment the command's first line gives (src/cli/main.ts is
 * their one source), for runs that start node themselves to add flags of their own (a profile).
 */
const FIRST_LINE_WORDS = fs
  .readFileSync(path.join(ROOT_DIR, "src", "cli", "main.ts"), "utf8")
  .split("\n")[0]
  .split(/\s+/);
const PRODUCT_NODE_FLAGS = FIRST_LINE_WORDS.filter((word) => word.startsWith("--"));
const PRODUCT_NODE_ENV = Object.fromEntries(
  FIRST_LINE_WORDS.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => [
    word.slice(0, word.indexOf("=")),
    word.slice(word.indexOf("=") + 1),
  ]),
);

/**
 * The environment of a benchmarked server: quiet logs, no per-IP limit (on hits or on
 * connections: every load generator's connection comes from one address), X-Forwarded-For trusted.
 */
export const SERVER_ENV = {
  ANALYTICS_LOG_LEVEL: "warn",
  ANALYTICS_COLLECT_RATE_LIMIT: "100000000",
  ANALYTICS_API_RATE_LIMIT: "1000000",
  ANALYTICS_MAX_CONNECTIONS_PER_CLIENT: "0",
  ANALYTICS_TRUST_PROXY: "1",
};

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `argv` (a program and its arguments), pinned to `cpu` (a taskset list such as "1")
 * unless cpu is null, with its output appended to `log`. The child's pid is the program's
 * own (taskset execs it, and so does the `env` of a script's first line).
 */
export function spawnProgram(argv, { cpu = null, env = {}, log, cwd = ROOT_DIR } = {}) {
  const out = log ? fs.openSync(log, "a") : "ignore";
  const pinned = cpu === null ? argv : ["taskset", "-c", String(cpu), ...argv];
  const child = spawn(pinned[0], pinned.slice(1), {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", out, out],
  });
  if (typeof out === "number") fs.closeSync(out);
  child.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return child;
}

/** Spawns `node ...args` as spawnProgram does. */
export function spawnNode(args, options = {}) {
  return spawnProgram([process.execPath, ...args], options);
}

/** Runs a command to its end (optionally pinned), returning its standard output. */
export function runCommand(command, args, { cpu = null, env = {}, cwd = ROOT_DIR, onStart } = {}) {
  const argv = cpu === null ? [command, ...args] : ["taskset", "-c", String(cpu), command, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...process.env, ...env } });
    const out = [];
    const err = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    onStart?.(child);
    child.once("error", reject);
    child.once("exit", (code) => {
      const stdout = Buffer.concat(out).toString();
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(`${argv.join(" ")} exited with ${code}: ${Buffer.concat(err).toString().slice(-2000)}`),
        );
    });
  });
}

/** The last JSON line a load generator printed. */
export function lastJsonLine(stdout, prefix = "") {
  const line = stdout
    .trim()
    .split("\n")
    .reverse()
    .find((candidate) => candidate.startsWith(`${prefix}{`));
  if (!line) throw new Error(`no result line in: ${stdout.slice(-500)}`);
  return JSON.parse(line.slice(prefix.length));
}

/** Resolves once GET `path` answers (with `status` if given), or rejects after `timeoutMs`. */
export async function waitReady(
  port,
  { path: route = "/healthz", status = null, timeoutMs = 30_000, child } = {},
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode} before it was ready`);
    const answer = await new Promise((resolve) => {
      const request = http.get({ host: "127.0.0.1", port, path: route, agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      request.on("error", () => resolve(null));
      request.setTimeout(1000, () => request.destroy());
    });
    if (answer !== null && (status === null || answer === status)) return;
    await sleep(100);
  }
  throw new Error(`nothing answered on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts the product's server as a user does, through the `analytics` command (its first
 * line gives node its flags); with `nodeArgs`, through node with the same flags and those.
 * Resolves once /healthz answers 200.
 */
export async function startProduct({ dataDir, cpu, log, nodeArgs = [], env = {} }) {
  const port = await freePort();
  const serve = ["serve", "--port", String(port), "--data-dir", dataDir];
  const argv =
    nodeArgs.length === 0
      ? [CLI, ...serve]
      : [process.execPath, ...PRODUCT_NODE_FLAGS, ...nodeArgs, CLI, ...serve];
  const firstLineEnv = nodeArgs.length === 0 ? {} : PRODUCT_NODE_ENV;
  const child = spawnProgram(argv, { cpu, log, env: { ...firstLineEnv, ...SERVER_ENV, ...env } });
  await waitReady(port, { status: 200, child });
  return { child, port, url: `http://127.0.0.1:${port}` };
}

/** Starts a baseline server of bench/ (bare-server.mjs, fastify-server.mjs); resolves once it answers. */
export async function startBaseline({ script, cpu, log }) {
  const port = await freePort();
  const child = spawnNode([path.join(BENCH_DIR, script), "--port", String(port)], { cpu, log });
  await waitReady(port, { path: "/", child });
  return { child, port, url: `http://127.0.0.1:${port}` };
}

/** Sends SIGTERM and waits for the exit: { code, signal, ms }. */
export async function stop(child, timeoutMs = 60_000) {
  if (child.exitCode !== null) return { code: child.exitCode, signal: null, ms: 0 };
  const began = Date.now();
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const result = await child.exited;
  clearTimeout(timer);
  return { ...result, ms: Date.now() - began };
}

/** User plus system CPU time of a process (all its threads) so far, in ms. */
export function cpuTimeMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * CPU time the whole machine spent busy so far (every core, user, system, interrupts and
 * steal), in ms: minus the processes measured, it shows the kernel's network work and any
 * other load sharing the machine.
 */
export function machineBusyMs() {
  const fields = fs
    .readFileSync("/proc/stat", "utf8")
    .split("\n", 1)[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return ((user + nice + system + irq + softirq + steal) * 1000) / CLOCK_TICKS;
}

/**
 * Waits until the machine has been nearly idle (under `maxBusyPct` of one core, all cores
 * together) for `windowMs`, so a measurement does not start while something else runs.
 * Gives up after `timeoutMs`; resolves to { waitedMs, quiet, busyPct } either way.
 */
export async function waitQuiet({ maxBusyPct = 20, windowMs = 1000, timeoutMs = 60_000 } = {}) {
  const began = Date.now();
  let busyPct = 0;
  while (true) {
    const before = machineBusyMs();
    await sleep(windowMs);
    busyPct = Math.round(((machineBusyMs() - before) / windowMs) * 100);
    if (busyPct <= maxBusyPct) return { waitedMs: Date.now() - began, quiet: true, busyPct };
    if (Date.now() - began >= timeoutMs) return { waitedMs: Date.now() - began, quiet: false, busyPct };
  }
}

/**
 * CPU time so far of a process's main thread (JavaScript) and of all its other threads
 * together (V8's GC and compiler helpers, libuv's pool, where native add-ons such as DuckDB
 * run queries, and DuckDB's own threads), in ms.
 */
export function threadCpuMs(pid) {
  let main = 0;
  let others = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    if (Number(tid) === pid) main = ms;
    else others += ms;
  }
  return { main, others };
}

/** Peak resident memory of a process so far, in MiB. */
export function peakRssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Math.round(Number(match[1]) / 1024) : null;
}

/** Follows a process's CPU time while it runs (it cannot be read once it has exited). */
export function followCpu(pid, everyMs = 200) {
  let last = 0;
  const read = () => {
    try {
      last = cpuTimeMs(pid);
    } catch {
      // exited
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return () => {
    clearInterval(timer);
    read();
    return last;
  };
}

/**
 * Creates a user in `dataDir` (or in the metadata store `env` configures) and returns its
 * API key (the last line the command prints).
 */
export async function createUser(dataDir, email = "bench@bench.example", env = {}) {
  const stdout = await runCommand(
    process.execPath,
    [CLI, "users", "create", "--email", email, "--data-dir", dataDir],
    {
      env: { ANALYTICS_LOG_LEVEL: "warn", ...env },
    },
  );
  return stdout.trim().split("\n").pop().trim();
}

/** Creates a website through the API and returns its id. */
export async function createWebsite(url, key, domain = "bench.example", timezone = "UTC") {
  const response = await fetch(`${url}/api/v1/websites`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ domain, timezone }).toString(),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`creating the website answered ${response.status}: ${text}`);
  return JSON.parse(text).data.id;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
