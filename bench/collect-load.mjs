// Load generators for POST /api/event (or any server answering it, such as the bare
// baseline), each printing one JSON line of results on standard output.
//
//   node bench/collect-load.mjs open   --url URL --rate 5000 --duration 20 [--seed 1] [--connections 256]
//   node bench/collect-load.mjs closed --url URL --connections 64 --duration 15 [--seed 1] [--hits 20000]
//   node bench/collect-load.mjs wrk-file --out FILE [--hits 20000] [--seed 1]
//
// open: an open loop. Request i is due at start + i / rate whatever happened to the earlier
//   ones; its latency runs from that scheduled instant to the end of its answer, so time
//   spent waiting behind a slow answer (or a slow generator) counts (no coordinated
//   omission). When every connection is busy, due requests wait in a queue (and that wait
//   counts too).
// closed: each of --connections keep-alive connections sends its next hit as soon as the
//   previous answer arrived, for --duration seconds. Answers still in flight at the end are
//   awaited, so the counts are exact.
// wrk-file: writes hits for bench/wrk-collect.lua, one per line: user agent, accept-language,
//   client IP and body, separated by tabs.
//
// Requests are serialised once, before the clock starts, and written as raw HTTP/1.1 on
// keep-alive sockets opened in advance; answers are parsed just enough to classify them.
// This keeps the generator's own cost and pauses well below what it measures. Every answer
// is classified: 202 without X-Analytics-Dropped is accepted; 202 with it is dropped (by
// reason); anything else, and any socket error or timeout, is a failure.
//
// Like any HTTP client that keeps connections alive (browsers, undici), a connection is not
// reused once the server may have closed it for being idle: after the server closed it, or
// when it has been idle for longer than the `Keep-Alive: timeout=N` the server announced,
// less a second; the next request then goes on a new connection (its latency includes the
// connect). Otherwise a request written at the moment the server closes an idle socket would
// be lost and count as a failure of the server.

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createTraffic, toCollectRequest } from "./traffic.mjs";

const REQUEST_TIMEOUT_MS = 10_000;
const HEADER_END = Buffer.from("\r\n\r\n");
const CHUNKED_END = Buffer.from("0\r\n\r\n");

function targetOf(url) {
  const target = new URL(url);
  if (target.hostname !== "127.0.0.1") throw new Error("the load generators only target 127.0.0.1");
  return { host: target.hostname, port: Number(target.port) };
}

/**
 * `count` serialised POST /api/event requests of seeded traffic for `domain` (at most
 * `distinct` different ones, repeated in order), as views into one buffer.
 */
export function collectRequests({ count, port, seed = 1, domain = "bench.example", distinct = 20_000 }) {
  const traffic = createTraffic({ seed, domain });
  const unique = Math.min(count, distinct);
  const parts = [];
  for (let i = 0; i < unique; i++) {
    const { body, headers } = toCollectRequest(traffic.next());
    const bytes = Buffer.from(body);
    const head =
      `POST /api/event HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Content-Type: ${headers["content-type"]}\r\nUser-Agent: ${headers["user-agent"]}\r\n` +
      `Accept-Language: ${headers["accept-language"]}\r\nX-Forwarded-For: ${headers["x-forwarded-for"]}\r\n` +
      `Content-Length: ${bytes.length}\r\n\r\n`;
    parts.push(Buffer.concat([Buffer.from(head, "latin1"), bytes]));
  }
  const all = Buffer.concat(parts);
  const views = [];
  let offset = 0;
  for (const part of parts) {
    views.push(all.subarray(offset, offset + part.length));
    offset += part.length;
  }
  return Array.from({ length: count }, (_, i) => views[i % unique]);
}

/**
 * One keep-alive connection with at most one request in flight. `onAnswer(outcome)` gets
 * { status, dropped } or { error } for each request sent.
 */
class Connection {
  constructor(target) {
    this.target = target;
    this.buffer = null;
    this.onAnswer = null;
    this.sentAt = 0;
    this.usedAt = 0;
    this.idleLimitMs = Number.POSITIVE_INFINITY;
    this.closed = false;
    this.reconnects = 0;
  }

  open() {
    return new Promise((resolve, reject) => {
      this.socket = net.connect(this.target.port, this.target.host);
      this.closed = false;
      this.usedAt = performance.now();
      this.socket.setNoDelay(true);
      this.socket.once("connect", () => resolve(this));
      this.socket.once("error", reject);
      this.socket.on("data", (chunk) => this.read(chunk));
      this.socket.on("close", () => {
        this.closed = true;
        if (this.onAnswer) this.fail("closed");
      });
      this.socket.on("error", () => undefined);
    });
  }

  send(bytes, onAnswer) {
    this.onAnswer = onAnswer;
    this.sentAt = performance.now();
    // A connection the server closed, or may be closing, for being idle: use a new one
    // (writes to a connecting socket are sent once it is connected).
    if (this.closed || this.sentAt - this.usedAt > this.idleLimitMs) {
      this.reconnects += 1;
      this.reopen();
    }
    this.usedAt = this.sentAt;
    this.socket.write(bytes);
  }

  read(chunk) {
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    const headEnd = this.buffer.indexOf(HEADER_END);
    if (headEnd < 0) return;
    const head = this.buffer.toString("latin1", 0, headEnd);
    let end = headEnd + 4;
    if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const last = this.buffer.indexOf(CHUNKED_END, end);
      if (last < 0) return;
      end = last + CHUNKED_END.length;
    } else {
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      end += length ? Number(length[1]) : 0;
      if (this.buffer.length < end) return;
    }
    this.buffer = this.buffer.length > end ? this.buffer.subarray(end) : null;
    const dropped = /\r\nx-analytics-dropped:\s*([^\r]*)/i.exec(head);
    const closing = /\r\nconnection:\s*close/i.test(head);
    const keepAlive = /\r\nkeep-alive:\s*timeout=(\d+)/i.exec(head);
    if (keepAlive) this.idleLimitMs = Math.max(500, (Number(keepAlive[1]) - 1) * 1000);
    this.usedAt = performance.now();
    this.answer({ status: Number(head.slice(9, 12)), dropped: dropped ? dropped[1] : undefined });
    if (closing) this.reopen();
  }

  answer(outcome) {
    const callback = this.onAnswer;
    this.onAnswer = null;
    callback?.(outcome);
  }

  fail(error) {
    this.buffer = null;
    this.answer({ error });
  }

  reopen() {
    this.socket.removeAllListeners("close");
    this.socket.destroy();
    this.ready = this.open();
    this.ready.catch(() => undefined);
  }

  timedOut(now) {
    if (this.onAnswer && now - this.sentAt > REQUEST_TIMEOUT_MS) {
      this.socket.removeAllListeners("close");
      this.socket.destroy();
      this.fail("timeout");
      this.ready = this.open();
      this.ready.catch(() => undefined);
    }
  }

  close() {
    this.socket.removeAllListeners("close");
    this.socket.destroy();
  }
}

async function openConnections(target, count) {
  const connections = Array.from({ length: count }, () => new Connection(target));
  await Promise.all(connections.map((connection) => connection.open()));
  return connections;
}

/** A tally of answers and latencies (ms). */
function tally(capacity) {
  return {
    latencies: new Float64Array(capacity),
    count: 0,
    accepted: 0,
    dropped: {},
    statuses: {},
    errors: {},
    record(outcome, latencyMs) {
      if (this.count === this.latencies.length) {
        const grown = new Float64Array(this.latencies.length * 2);
        grown.set(this.latencies);
        this.latencies = grown;
      }
      this.latencies[this.count++] = latencyMs;
      if (outcome.error) this.errors[outcome.error] = (this.errors[outcome.error] ?? 0) + 1;
      else if (outcome.status !== 202)
        this.statuses[outcome.status] = (this.statuses[outcome.status] ?? 0) + 1;
      else if (outcome.dropped) this.dropped[outcome.dropped] = (this.dropped[outcome.dropped] ?? 0) + 1;
      else this.accepted += 1;
    },
  };
}

/** p50, p90, p99, p99.9, max and mean of the first `count` values, in ms. */
export function percentiles(values, count = values.length) {
  if (count === 0) return { p50: null, p90: null, p99: null, p999: null, max: null, mean: null };
  const sorted = Float64Array.from(values.subarray ? values.subarray(0, count) : values.slice(0, count));
  sorted.sort();
  const at = (q) => sorted[Math.min(count - 1, Math.ceil(q * count) - 1)];
  let sum = 0;
  for (const value of sorted) sum += value;
  const round = (value) => Math.round(value * 1000) / 1000;
  return {
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    p999: round(at(0.999)),
    max: round(sorted[count - 1]),
    mean: round(sum / count),
  };
}

const SLOW_MS = 10;
const WINDOW_MS = 100;

/**
 * The requests slower than `thresholdMs`, and in how many separate 100 ms windows (by
 * scheduled time) they fall: a few windows a second, each holding many slow requests, means
 * the server stalls periodically (a flush, a GC) rather than being slow throughout.
 */
function slowWindows(latencies, intervalMs, thresholdMs) {
  const windows = new Map();
  let requests = 0;
  latencies.forEach((latency, index) => {
    if (latency <= thresholdMs) return;
    requests += 1;
    const window = Math.floor((index * intervalMs) / WINDOW_MS);
    windows.set(window, (windows.get(window) ?? 0) + 1);
  });
  const seconds = (latencies.length * intervalMs) / 1000;
  return {
    thresholdMs,
    requests,
    share: Math.round((requests / Math.max(1, latencies.length)) * 10_000) / 100,
    windows: windows.size,
    windowsPerSecond: Math.round((windows.size / seconds) * 100) / 100,
  };
}

/** The open loop: `rate` requests a second for `duration` seconds, latency from the scheduled instant. */
export async function openLoop({ url, rate, duration, seed = 1, connections = 256, domain }) {
  const target = targetOf(url);
  const total = Math.round(rate * duration);
  const requests = collectRequests({ count: total, port: target.port, seed, domain });
  const pool = await openConnections(target, connections);
  const idle = [...pool];
  const queue = []; // indexes of due requests waiting for a connection
  const result = tally(total);
  const sendLag = new Float64Array(total);
  const byIndex = new Float64Array(total);
  const intervalMs = 1000 / rate;
  let sent = 0;
  let completed = 0;
  let finished;
  const done = new Promise((resolve) => {
    finished = resolve;
  });
  const start = performance.now() + 50;

  let maxQueue = 0;
  const dispatch = (connection, index) => {
    const scheduled = start + index * intervalMs;
    connection.send(requests[index], (outcome) => {
      const latency = performance.now() - scheduled;
      result.record(outcome, latency);
      byIndex[index] = latency;
      completed += 1;
      if (completed === total) finished();
      // Wait for a reconnection (after `connection: close` or a timeout) before reusing it.
      const next = () => (queue.length > 0 ? dispatch(connection, queue.shift()) : idle.push(connection));
      if (connection.ready) connection.ready.then(next, next);
      else next();
    });
  };

  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const connection of pool) connection.timedOut(now);
  }, 1000);

  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor((now - start) / intervalMs) + 1);
      while (sent < due) {
        const index = sent++;
        sendLag[index] = now - (start + index * intervalMs);
        if (idle.length > 0) dispatch(idle.pop(), index);
        else queue.push(index);
      }
      if (queue.length > maxQueue) maxQueue = queue.length;
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    setTimeout(tick, 50);
  });
  const lastDue = start + (total - 1) * intervalMs;
  let timer;
  await Promise.race([
    done,
    new Promise((resolve) => (timer = setTimeout(resolve, REQUEST_TIMEOUT_MS + 5_000))),
  ]);
  clearTimeout(timer);
  clearInterval(watchdog);
  const end = performance.now();
  for (const connection of pool) connection.close();
  return {
    mode: "open",
    targetRate: rate,
    duration,
    connections,
    sent,
    completed,
    unanswered: sent - completed,
    accepted: result.accepted,
    dropped: result.dropped,
    statuses: result.statuses,
    errors: result.errors,
    reconnects: pool.reduce((total, connection) => total + connection.reconnects, 0),
    achievedRate: Math.round(total / ((lastDue - start) / 1000 + intervalMs / 1000)),
    drainMs: Math.round(end - lastDue),
    latencyMs: percentiles(result.latencies, result.count),
    // How late the generator noticed each request was due (its own timer and pauses), and
    // the most due requests that had to wait for a free connection.
    sendLagMs: percentiles(sendLag, sent),
    maxQueued: maxQueue,
    slow: slowWindows(byIndex, intervalMs, SLOW_MS),
  };
}

/** The closed loop: `connections` loops of request-then-answer for `duration` seconds. */
export async function closedLoop({ url, connections = 64, duration, seed = 1, hits = 20_000, domain }) {
  const target = targetOf(url);
  const requests = collectRequests({ count: hits, port: target.port, seed, domain });
  const pool = await openConnections(target, connections);
  const result = tally(1 << 16);
  let next = 0;
  const start = performance.now();
  const deadline = start + duration * 1000;
  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const connection of pool) connection.timedOut(now);
  }, 1000);
  const loop = (connection) =>
    new Promise((resolve) => {
      const sendNext = () => {
        if (performance.now() >= deadline) return resolve();
        const request = requests[next];
        next = (next + 1) % requests.length;
        const began = performance.now();
        connection.send(request, (outcome) => {
          result.record(outcome, performance.now() - began);
          if (connection.ready) connection.ready.then(sendNext, sendNext);
          else sendNext();
        });
      };
      sendNext();
    });
  await Promise.all(pool.map(loop));
  const seconds = (performance.now() - start) / 1000;
  clearInterval(watchdog);
  for (const connection of pool) connection.close();
  return {
    mode: "closed",
    connections,
    duration,
    completed: result.count,
    accepted: result.accepted,
    dropped: result.dropped,
    statuses: result.statuses,
    errors: result.errors,
    reconnects: pool.reduce((total, connection) => total + connection.reconnects, 0),
    seconds: Math.round(seconds * 1000) / 1000,
    requestsPerSecond: Math.round(result.count / seconds),
    latencyMs: percentiles(result.latencies, result.count),
  };
}

/** Writes `hits` requests for bench/wrk-collect.lua. */
export function writeWrkFile({ out, hits = 20_000, seed = 1, domain }) {
  const traffic = createTraffic({ seed, domain });
  const lines = [];
  for (let i = 0; i < hits; i++) {
    const { body, headers } = toCollectRequest(traffic.next());
    lines.push(
      [headers["user-agent"], headers["accept-language"], headers["x-forwarded-for"], body].join("\t"),
    );
  }
  fs.writeFileSync(out, `${lines.join("\n")}\n`);
  return { out, hits };
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      url: { type: "string" },
      rate: { type: "string", default: "5000" },
      duration: { type: "string", default: "20" },
      connections: { type: "string" },
      seed: { type: "string", default: "1" },
      hits: { type: "string", default: "20000" },
      domain: { type: "string", default: "bench.example" },
      out: { type: "string" },
    },
  });
  const common = { seed: Number(values.seed), domain: values.domain };
  let result;
  if (mode === "open") {
    result = await openLoop({
      ...common,
      url: values.url,
      rate: Number(values.rate),
      duration: Number(values.duration),
      connections: Number(values.connections ?? 256),
    });
  } else if (mode === "closed") {
    result = await closedLoop({
      ...common,
      url: values.url,
      duration: Number(values.duration),
      connections: Number(values.connections ?? 64),
      hits: Number(values.hits),
    });
  } else if (mode === "wrk-file") {
    result = writeWrkFile({ ...common, out: values.out, hits: Number(values.hits) });
  } else {
    console.error("usage: collect-load.mjs open|closed|wrk-file [options] (see the comment at the top)");
    process.exit(2);
  }
  console.log(JSON.stringify(result));
}

if (path.resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) await main();
