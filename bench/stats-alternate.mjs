// Re-times the statistics of stores kept by `stats.mjs --keep`, alternating between them
// round after round, so that sizes are compared under the same machine conditions (on a
// shared virtual machine a single run of each size can differ by 2x in fixed costs).
// Each round starts the server on a store (pinned to --server-cpu), waits for a quiet
// machine, runs stats-query.mjs on --client-cpu (a warm-up and --runs requests per
// statistic, median kept; every answer checked against the store's expected.json when it
// has one; the server's resident memory sampled) and stops it. Prints per statistic the
// medians of every round and, for the first and last store, the ratio of the medians over
// rounds; then per store the slowest statistic (median over rounds) and the most memory
// the server held while answering.
//
//   npm run build
//   node bench/stats-alternate.mjs --rounds 3 --from 2026-10-20 --to 2026-11-18 DIR_1M DIR_100M

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, startProduct, stop, waitQuiet } from "./processes.mjs";

const { values: options, positionals: dirs } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: "string", default: "3" },
    runs: { type: "string", default: "5" },
    from: { type: "string" },
    to: { type: "string" },
    "website-id": { type: "string", default: "1" },
    "server-cpu": { type: "string", default: "1" },
    "client-cpu": { type: "string", default: "0" },
  },
});
if (dirs.length < 2 || !options.from || !options.to) {
  console.error(
    "usage: stats-alternate.mjs --from YYYY-MM-DD --to YYYY-MM-DD [--rounds 3] [--runs 5] DIR DIR...",
  );
  process.exit(2);
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
/** name -> dir -> medians, one per round */
const medians = new Map();
/** dir -> the most resident memory seen while answering, in bytes */
const maxRss = new Map();
for (let round = 1; round <= Number(options.rounds); round++) {
  for (const dir of dirs) {
    const server = await startProduct({
      dataDir: dir,
      cpu: Number(options["server-cpu"]),
      log: path.join(dir, "alternate-server.log"),
    });
    try {
      await waitQuiet({ maxBusyPct: 20, timeoutMs: 60_000 });
      const output = execFileSync(
        "taskset",
        [
          "-c",
          options["client-cpu"],
          process.execPath,
          path.join(BENCH_DIR, "stats-query.mjs"),
          ...["--url", server.url, "--key", fs.readFileSync(path.join(dir, "api-key"), "utf8").trim()],
          ...["--website-id", options["website-id"], "--from", options.from, "--to", options.to],
          ...["--runs", options.runs, "--server-pid", String(server.child.pid)],
          ...(fs.existsSync(path.join(dir, "expected.json"))
            ? ["--expected", path.join(dir, "expected.json")]
            : []),
        ],
        { encoding: "utf8" },
      );
      const report = JSON.parse(output.trim().split("\n").at(-1));
      maxRss.set(dir, Math.max(maxRss.get(dir) ?? 0, report.rss?.maxBytes ?? 0));
      for (const stat of report.stats) {
        if (!stat.ok) throw new Error(`${dir}: ${stat.name} answered wrong: ${stat.problems.join("; ")}`);
        if (!medians.has(stat.name)) medians.set(stat.name, new Map());
        const byDir = medians.get(stat.name);
        byDir.set(dir, [...(byDir.get(dir) ?? []), stat.medianMs]);
      }
    } finally {
      await stop(server.child);
    }
    console.error(`round ${round}: ${dir} done`);
  }
}

const [first, last] = [dirs[0], dirs.at(-1)];
console.log(
  `statistic        ${dirs.map((dir) => path.basename(dir)).join(" | ")} | ratio of medians (last / first)`,
);
for (const [name, byDir] of medians) {
  const ratio = median(byDir.get(last)) / median(byDir.get(first));
  console.log(
    `${name.padEnd(16)} ${dirs.map((dir) => byDir.get(dir).join(" ")).join(" | ")} | ${ratio.toFixed(2)}`,
  );
}
for (const dir of dirs) {
  const [name, ms] = [...medians]
    .map(([stat, byDir]) => [stat, median(byDir.get(dir))])
    .sort((a, b) => b[1] - a[1])[0];
  console.log(
    `${path.basename(dir)}: slowest ${name} ${ms} ms (median over rounds); RSS at most ${(maxRss.get(dir) / 2 ** 20).toFixed(1)} MiB; answers ${fs.existsSync(path.join(dir, "expected.json")) ? "checked" : "not checked (no expected.json)"}`,
  );
}
