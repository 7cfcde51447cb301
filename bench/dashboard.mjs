// Times a website's dashboard as a browser asks for it: the whole page (every total of the
// range and the period before, the daily series, the hours and the top 10 of every list) in
// one request, unfiltered, under each filter set, and one list opened in full. The server
// runs on a store kept by `stats.mjs --keep` (its website 1, made public for the page),
// pinned to one core, this client on another; one warm-up request, then `--runs` in a row,
// the median kept (wall time to the last byte, one keep-alive connection). Also the page's
// weight on first load: its HTML and its stylesheet, gzipped as served.
// `--today`: the range's last day is today on the server, as on a live one (a store seeded
// up to today: `stats.mjs --end` tomorrow's UTC midnight); the seeder folded it, so it is
// opened again first (written now, its visits not kept), and the runs begin once the
// server's upkeep has had two rounds to keep its visits.
// `--live N`: N events a second written into today meanwhile (POST /api/v1/events, five
// requests a second, from the first upkeep round to the last run), as on a live site, so
// that every view also counts what was written since today's counts and visits were kept.
// `--live-via collect`: the N events a second as hits to POST /api/event instead, one
// request each, as a live site's visitors send them: the server's write buffer stores them
// about once a second, where each import request is a write of its own.
//
//   node bench/dashboard.mjs --data-dir DIR --from 2026-10-23 --to 2026-11-21 \
//     [--runs 5] [--filters "country==US|page==/pricing"] [--server-cpu 1] [--today] [--live 500]
//     [--live-via import|collect]

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";
import { startProduct, stop } from "./processes.mjs";
import { createTraffic, toCollectRequest, toImportEvent } from "./traffic.mjs";

const { values: options } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    runs: { type: "string", default: "5" },
    filters: {
      type: "string",
      default:
        "page==/pricing|country==US:United States|browser!=Chrome|referrer~google|page~/docs;device==mobile",
    },
    "server-cpu": { type: "string", default: "1" },
    today: { type: "boolean", default: false },
    live: { type: "string", default: "0" },
    "live-via": { type: "string", default: "import" },
  },
});
for (const required of ["data-dir", "from", "to"]) {
  if (!options[required]) {
    console.error(
      "usage: dashboard.mjs --data-dir DIR --from YYYY-MM-DD --to YYYY-MM-DD [--runs 5] [--filters A|B]",
    );
    process.exit(2);
  }
}
if (!["import", "collect"].includes(options["live-via"])) {
  console.error("--live-via is import or collect");
  process.exit(2);
}
const dataDir = path.resolve(options["data-dir"]);
const key = fs.readFileSync(path.join(dataDir, "api-key"), "utf8").trim();
const runs = Number(options.runs);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** The live writes (--live), once the server is up. */
let live = null;

/** One GET: status, the body's bytes (gzipped if asked) and the wall time in ms. */
function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.concat(chunks),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
    });
    request.on("error", reject);
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

if (options.today) {
  const instance = await DuckDBInstance.create(path.join(dataDir, "events.duckdb"));
  const connection = await instance.connect();
  const day = [1, options.to];
  await connection.run(
    "UPDATE event_days SET folded = false, written = now() WHERE website_id = $1 AND day = CAST($2 AS DATE)",
    day,
  );
  await connection.run("DELETE FROM visit_days WHERE website_id = $1 AND day = CAST($2 AS DATE)", day);
  connection.closeSync();
  instance.closeSync();
}

const server = await startProduct({
  dataDir,
  cpu: options["server-cpu"] === "none" ? null : Number(options["server-cpu"]),
});
try {
  const api = (method, url, body) =>
    fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    }).then((response) => response.json());
  const website = (await api("GET", "/api/v1/websites/1")).data;
  live =
    options["live-via"] === "collect"
      ? collectLive(server.url, website.domain, Number(options.live))
      : writeLive(server.url, website.domain, Number(options.live));
  if (options.today) await new Promise((resolve) => setTimeout(resolve, 12_000)); // two upkeep rounds
  if (website.privacy !== 0) await api("PUT", "/api/v1/websites/1", { privacy: 0 });
  const range = `from=${options.from}&to=${options.to}`;
  const views = [
    { view: "dashboard", query: range },
    ...options.filters
      .split("|")
      .filter(Boolean)
      .map((filters) => ({
        view: `dashboard, ${filters}`,
        query: `${range}&filters=${encodeURIComponent(filters)}`,
      })),
    { view: "pages in full (page 1)", query: `${range}&details=page` },
  ];
  const results = [];
  for (const { view, query } of views) {
    const url = `${server.url}/${website.domain}?${query}`;
    const times = [];
    let weight = null;
    for (let run = 0; run <= runs; run++) {
      const answer = await get(url, { "accept-encoding": "gzip" });
      if (answer.status !== 200) throw new Error(`${view}: HTTP ${answer.status}`);
      if (run === 0) weight = answer.body.length;
      else times.push(answer.ms);
    }
    results.push({ view, medianMs: Math.round(median(times) * 10) / 10, htmlGzipBytes: weight });
    console.error(`${view}: ${results.at(-1).medianMs} ms`);
  }
  const page = (await get(`${server.url}/${website.domain}?${range}`)).body.toString();
  const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(page)?.[1];
  const css = await get(`${server.url}${stylesheet}`, { "accept-encoding": "gzip" });
  const firstLoad = results[0].htmlGzipBytes + css.body.length;
  console.log(
    JSON.stringify({
      dataDir,
      from: options.from,
      to: options.to,
      runs,
      liveEventsPerSecond: Number(options.live),
      liveVia: options["live-via"],
      cssGzipBytes: css.body.length,
      firstLoadGzipBytes: firstLoad,
      results,
    }),
  );
} finally {
  const written = live?.stop();
  if (written)
    console.error(
      `live: ${written.accepted} events written during the views, ${written.failed} requests failed`,
    );
  agent.destroy();
  await stop(server.child);
}

/**
 * Calls `send(agent, counts)` every `ms` milliseconds, on one keep-alive connection, for
 * it to send a request and count what was accepted and what failed; stop() ends it and
 * gives the counts.
 */
function repeatedly(ms, send) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const counts = { accepted: 0, failed: 0 };
  const timer = setInterval(() => send(agent, counts), ms);
  return {
    stop() {
      clearInterval(timer);
      agent.destroy();
      return counts;
    },
  };
}

/**
 * Writes `perSecond` events of today's traffic into website 1 in five requests a second,
 * each event stamped with the moment it is sent; stop() ends it and says how many went in.
 */
function writeLive(url, domain, perSecond) {
  if (!(perSecond > 0)) return null;
  const traffic = createTraffic({ seed: 7, domain });
  const target = new URL("/api/v1/events", url);
  return repeatedly(200, (agent, counts) => {
    const events = Array.from({ length: Math.ceil(perSecond / 5) }, () =>
      toImportEvent(traffic.next(), 1, Date.now()),
    );
    const request = http.request(
      target,
      {
        agent,
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 202) counts.accepted += JSON.parse(Buffer.concat(chunks)).accepted;
          else counts.failed += 1;
        });
      },
    );
    request.on("error", () => {
      counts.failed += 1;
    });
    request.end(JSON.stringify({ events }));
  });
}

/**
 * Sends `perSecond` hits of today's traffic to POST /api/event, one request each, evenly
 * spread; stop() ends it and says how many were accepted (202) and how many failed.
 */
function collectLive(url, domain, perSecond) {
  if (!(perSecond > 0)) return null;
  const traffic = createTraffic({ seed: 7, domain });
  const target = new URL("/api/event", url);
  return repeatedly(1000 / perSecond, (agent, counts) => {
    const { body, headers } = toCollectRequest(traffic.next());
    const request = http.request(target, { agent, method: "POST", headers }, (response) => {
      response.resume();
      response.on("end", () => {
        if (response.statusCode === 202) counts.accepted += 1;
        else counts.failed += 1;
      });
    });
    request.on("error", () => {
      counts.failed += 1;
    });
    request.end(body);
  });
}
