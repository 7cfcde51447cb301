// Times GET /api/v1/stats/{id} of a running server for each statistic over one window:
// one warm-up request, then `--runs` timed requests in a row (wall time from sending the
// request to the last byte of the answer, one keep-alive connection), the median kept.
// Every answer is checked: 200, a non-empty `data` with counts summing above 0, and, with
// `--expected` (the file stats-seed.mjs writes), `total` and every returned count equal to
// what the seeded events must give. Meanwhile the server's resident memory (VmRSS of
// /proc/PID/status) is sampled every `--rss-every` ms. Prints one JSON line.
// With `--filters F` every request carries `filters=F`; the expected answers are of the
// unfiltered statistics, so a filtered answer is only checked to be a page of positive
// integer counts (what the filters count is the contract tests' to check). Then the same for
// the totals compared with the previous period (`totals`) and the daily series
// (`timeseries`), checked against the sums of the expected statistics.
//
//   node bench/stats-query.mjs --url http://127.0.0.1:PORT --key KEY --website-id 1 \
//     --from 2026-10-20 --to 2026-11-18 [--expected FILE] [--server-pid PID] [--runs 5]
//     [--names pageviews,page] [--per-page 10] [--filters "page==/pricing;browser!=Chrome"]

import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";
import { STATS } from "../dist/src/stats/catalog.js";

/** The statistics, from the product's catalog (the build in dist/). */
export const STAT_NAMES = STATS.map((stat) => stat.name);
/** The answers built of several statistics, timed as one request each. */
const SUMMARIES = ["totals", "timeseries"];

const { values: options } = parseArgs({
  options: {
    url: { type: "string" },
    key: { type: "string" },
    "website-id": { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    expected: { type: "string" },
    "server-pid": { type: "string" },
    runs: { type: "string", default: "5" },
    names: { type: "string", default: [...STAT_NAMES, ...SUMMARIES].join(",") },
    "per-page": { type: "string", default: "10" },
    "rss-every": { type: "string", default: "50" },
    filters: { type: "string" },
  },
});
for (const required of ["url", "key", "website-id", "from", "to"]) {
  if (!options[required]) {
    console.error(
      "usage: stats-query.mjs --url URL --key KEY --website-id ID --from YYYY-MM-DD --to YYYY-MM-DD [--expected FILE] [--server-pid PID] [--runs 5] [--names a,b]",
    );
    process.exit(2);
  }
}

const runs = Number(options.runs);
const perPage = Number(options["per-page"]);
const names = options.names.split(",").filter(Boolean);
if (options.filters && options.expected) {
  console.error("--expected holds unfiltered answers: give it or --filters, not both");
  process.exit(2);
}
const expected = options.expected ? JSON.parse(fs.readFileSync(options.expected, "utf8")) : null;
const serverPid = options["server-pid"] ? Number(options["server-pid"]) : null;
const base = new URL(options.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET: { status, body, ms } with ms from sending to the last byte. */
function get(path) {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const request = http.get(
      {
        host: base.hostname,
        port: base.port,
        path,
        agent,
        headers: { authorization: `Bearer ${options.key}`, accept: "application/json" },
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode,
            body: Buffer.concat(chunks).toString(),
            ms: performance.now() - began,
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.setTimeout(120_000, () => request.destroy(new Error("no answer within 120 s")));
  });
}

// --- resident memory of the server

const rssSamples = [];
const readRss = () => {
  if (serverPid === null) return;
  try {
    const status = fs.readFileSync(`/proc/${serverPid}/status`, "utf8");
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    if (rss) rssSamples.push(Number(rss[1]) * 1024);
  } catch {
    // the server is gone; the requests will fail too
  }
};
const peakRss = () => {
  if (serverPid === null) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${serverPid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
};

// --- checking an answer

/** The expected statistic's counts added up. */
const expectedSum = (name) => (expected?.stats?.[name] ?? []).reduce((total, [, count]) => total + count, 0);

/** The totals or the series: every count as the expected statistics add up. */
function checkSummary(name, page) {
  const problems = [];
  const sums =
    name === "totals"
      ? page.data?.totals
      : Object.fromEntries(
          ["pageviews", "visitors", "visits"].map((key) => [
            key,
            (page.data ?? []).reduce((total, point) => total + point[key], 0),
          ]),
        );
  if (!sums || !(sums.pageviews > 0)) problems.push("no pageviews");
  if (expected && !options.filters) {
    for (const key of ["pageviews", "visitors", "visits"]) {
      if (sums?.[key] !== expectedSum(key))
        problems.push(`${key} ${sums?.[key]}, expected ${expectedSum(key)}`);
    }
  }
  return {
    problems,
    rows: name === "totals" ? 1 : (page.data?.length ?? 0),
    total: null,
    sum: sums?.pageviews ?? 0,
  };
}

function check(name, answer) {
  const problems = [];
  if (answer.status !== 200) return { problems: [`status ${answer.status}: ${answer.body.slice(0, 300)}`] };
  let page;
  try {
    page = JSON.parse(answer.body);
  } catch {
    return { problems: ["the body is not JSON"] };
  }
  if (SUMMARIES.includes(name)) return checkSummary(name, page);
  const data = Array.isArray(page.data) ? page.data : [];
  const sum = data.reduce((total, row) => total + Number(row.count), 0);
  if (options.filters) {
    // A filter may leave a statistic empty (no campaign among the visits of one page).
    if (!Number.isInteger(page.total) || page.total < data.length) problems.push(`total ${page.total}`);
    if (!data.every((row) => Number.isInteger(row.count) && row.count > 0))
      problems.push("a count not above 0");
  } else {
    if (data.length === 0) problems.push("empty data");
    if (!(sum > 0)) problems.push(`counts sum to ${sum}`);
  }
  const wanted = expected?.stats?.[name];
  if (wanted) {
    const counts = new Map(wanted);
    if (page.total !== wanted.length) problems.push(`total ${page.total}, expected ${wanted.length}`);
    if (data.length !== Math.min(perPage, wanted.length))
      problems.push(`${data.length} rows, expected ${Math.min(perPage, wanted.length)}`);
    data.forEach((row, i) => {
      const count = counts.get(row.value);
      if (count !== row.count) problems.push(`${JSON.stringify(row.value)}: ${row.count}, expected ${count}`);
      else if (wanted[i] && wanted[i][1] !== row.count)
        problems.push(
          `row ${i + 1} counts ${row.count}, expected the ${i + 1}th largest count ${wanted[i][1]}`,
        );
    });
  }
  return { problems: problems.slice(0, 5), rows: data.length, total: page.total, sum, top: data[0] ?? null };
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round2 = (n) => Math.round(n * 100) / 100;

// --- the measurement

readRss();
const rssBefore = rssSamples[0] ?? null;
const timer = setInterval(readRss, Number(options["rss-every"]));
const results = [];
const started = performance.now();
try {
  for (const name of names) {
    const summary = SUMMARIES.includes(name);
    const query = new URLSearchParams(
      summary ? { from: options.from, to: options.to } : { name, from: options.from, to: options.to },
    );
    if (perPage !== 10 && !summary) query.set("per_page", String(perPage));
    if (options.filters) query.set("filters", options.filters);
    const path = `/api/v1/stats/${options["website-id"]}${summary ? `/${name}` : ""}?${query}`;
    const warm = await get(path);
    const checked = check(name, warm);
    const times = [];
    const problems = [...checked.problems.map((problem) => `warm-up: ${problem}`)];
    for (let i = 0; i < runs; i++) {
      const answer = await get(path);
      times.push(answer.ms);
      // Every timed answer must be the same right answer.
      if (answer.body !== warm.body && answer.status === 200) {
        const again = check(name, answer);
        problems.push(...again.problems.map((problem) => `run ${i + 1}: ${problem}`));
      } else if (answer.status !== 200) {
        problems.push(`run ${i + 1}: status ${answer.status}`);
      }
    }
    results.push({
      name,
      warmupMs: round2(warm.ms),
      ms: times.map(round2),
      medianMs: round2(median(times)),
      rows: checked.rows ?? 0,
      total: checked.total ?? null,
      sum: checked.sum ?? 0,
      top: checked.top ?? null,
      ok: problems.length === 0,
      problems,
    });
  }
} finally {
  clearInterval(timer);
  readRss();
  agent.destroy();
}

console.log(
  JSON.stringify({
    from: options.from,
    to: options.to,
    filters: options.filters ?? null,
    runs,
    seconds: round2((performance.now() - started) / 1000),
    stats: results,
    rss:
      serverPid === null
        ? null
        : {
            samples: rssSamples.length,
            beforeBytes: rssBefore,
            maxBytes: Math.max(...rssSamples),
            peakSinceStartBytes: peakRss(),
          },
  }),
);
