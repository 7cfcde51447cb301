// Bulk import through POST /api/v1/events: `--events` seeded events over `--days` days,
// `--batch` per request, `--concurrency` requests in flight. Prints one JSON line with the
// events accepted and dropped, the failures and the events per second, timed from the first
// request sent to the last answer received. Bodies are built while earlier requests are in
// flight (the first ones before the clock starts), or with --prebuild all of them before it
// starts, so the generator's JSON work does not compete with the server for the CPUs (about
// 350 MB a million events).
//
//   node bench/import-load.mjs --url http://127.0.0.1:PORT --key KEY --website-id 1 \
//     [--events 1000000] [--batch 10000] [--concurrency 2] [--days 30] [--seed 2] [--domain bench.example] [--visits]
//     [--prebuild]
//     [--end ISO-INSTANT (default: a minute ago; the same --end and --seed give the same events)]

import http from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { percentiles } from "./collect-load.mjs";
import { importEvents, inBatches } from "./traffic.mjs";

export async function importLoad({
  url,
  key,
  websiteId = 1,
  events = 1_000_000,
  batch = 10_000,
  concurrency = 2,
  days = 30,
  seed = 2,
  domain = "bench.example",
  end = undefined,
  prebuild = false,
  visits = false,
}) {
  const target = new URL(url);
  if (target.hostname !== "127.0.0.1") throw new Error("the load generators only target 127.0.0.1");
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  // --visits: the tracker's engagements and one-page visits too, as bench/stats-seed.mjs makes them.
  const visitShares = visits ? { engagementShare: 0.25, bounceShare: 0.3 } : {};
  const batches = inBatches(
    importEvents({ count: events, days, end, websiteId, seed, domain, ...visitShares }),
    batch,
  );
  let buildMs = 0;
  const nextBody = () => {
    const began = performance.now();
    const next = batches.next();
    if (next.done) return null;
    const body = Buffer.from(JSON.stringify({ events: next.value }));
    buildMs += performance.now() - began;
    return { body, count: next.value.length };
  };
  const post = (body) =>
    new Promise((resolve) => {
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: Number(target.port),
          method: "POST",
          path: "/api/v1/events",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "content-length": String(body.length),
          },
        },
        (response) => {
          const chunks = [];
          response.on("data", (chunk) => chunks.push(chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() }),
          );
          response.on("error", (error) => resolve({ status: 0, text: String(error) }));
        },
      );
      request.setTimeout(300_000, () => request.destroy(new Error("timeout")));
      request.on("error", (error) => resolve({ status: 0, text: String(error) }));
      request.end(body);
    });

  // The first bodies (all of them with prebuild) are built before the clock starts.
  const ready = [];
  const upFront = prebuild ? Number.POSITIVE_INFINITY : concurrency;
  while (ready.length < upFront) {
    const body = nextBody();
    if (!body) break;
    ready.push(body);
  }
  const summary = { sent: 0, accepted: 0, dropped: {}, failures: [], requests: 0 };
  const requestMs = [];
  const start = performance.now();
  const worker = async () => {
    for (let job = ready.shift() ?? nextBody(); job; job = ready.shift() ?? nextBody()) {
      const began = performance.now();
      const answer = await post(job.body);
      requestMs.push(performance.now() - began);
      summary.requests += 1;
      summary.sent += job.count;
      if (answer.status !== 202) {
        summary.failures.push({ status: answer.status, body: answer.text.slice(0, 500) });
        continue;
      }
      const result = JSON.parse(answer.text);
      summary.accepted += result.accepted;
      for (const [reason, n] of Object.entries(result.dropped)) {
        if (n > 0) summary.dropped[reason] = (summary.dropped[reason] ?? 0) + n;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return {
    ...summary,
    batch,
    concurrency,
    seconds: Math.round(seconds * 1000) / 1000,
    eventsPerSecond: Math.round(summary.accepted / seconds),
    requestMs: percentiles(Float64Array.from(requestMs)),
    clientBuildSeconds: Math.round(buildMs) / 1000,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      key: { type: "string" },
      "website-id": { type: "string", default: "1" },
      events: { type: "string", default: "1000000" },
      batch: { type: "string", default: "10000" },
      concurrency: { type: "string", default: "2" },
      days: { type: "string", default: "30" },
      seed: { type: "string", default: "2" },
      domain: { type: "string", default: "bench.example" },
      end: { type: "string" },
      prebuild: { type: "boolean", default: false },
      visits: { type: "boolean", default: false },
    },
  });
  const result = await importLoad({
    url: values.url,
    key: values.key,
    websiteId: Number(values["website-id"]),
    events: Number(values.events),
    batch: Number(values.batch),
    concurrency: Number(values.concurrency),
    days: Number(values.days),
    seed: Number(values.seed),
    domain: values.domain,
    end: values.end ? Date.parse(values.end) : undefined,
    prebuild: values.prebuild,
    visits: values.visits,
  });
  console.log(JSON.stringify(result));
}

if (path.resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) await main();
