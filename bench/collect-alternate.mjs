// Compares variants of the collection server under the same open loop, alternating between
// them round after round (the order reversed every other round), so that a change is judged
// under the same machine conditions: on a shared virtual machine one run of each can differ
// by more than the change. Each run starts a fresh server (pinned to --server-cpu), warms it
// up for --warmup seconds, waits for a quiet machine, then sends --rate hits/s for
// --duration seconds from --load-cpu and reads the latency and the server's CPU per hit.
//
// A variant is a name with an optional checkout (`tree`, another worktree with its own
// build), environment (`env`) and node flags (`nodeArgs`, added to the command's own):
//
//   npm run build
//   node bench/collect-alternate.mjs --rounds 4 \
//     --variant 'nice10={"env":{"ANALYTICS_HELPER_NICENESS":"10"}}' \
//     --variant 'nice0={"env":{"ANALYTICS_HELPER_NICENESS":"0"}}'

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCH_DIR, cpuTimeMs, lastJsonLine, runCommand, waitQuiet } from "./processes.mjs";

const { values: options } = parseArgs({
  options: {
    variant: { type: "string", multiple: true, default: [] },
    rounds: { type: "string", default: "4" },
    rate: { type: "string", default: "5000" },
    duration: { type: "string", default: "20" },
    warmup: { type: "string", default: "5" },
    "server-cpu": { type: "string", default: "1" },
    "load-cpu": { type: "string", default: "0" },
  },
});
const variants = options.variant.map((spec) => {
  const at = spec.indexOf("=");
  const name = at < 0 ? spec : spec.slice(0, at);
  const {
    tree = path.dirname(BENCH_DIR),
    env = {},
    nodeArgs = [],
  } = at < 0 ? {} : JSON.parse(spec.slice(at + 1));
  return { name, tree: path.resolve(tree), env, nodeArgs };
});
if (variants.length < 2) {
  console.error("usage: collect-alternate.mjs --variant NAME[=JSON] --variant NAME[=JSON] [--rounds 4] ...");
  process.exit(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "collect-alternate-"));
const results = new Map(variants.map((variant) => [variant.name, []]));
try {
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const result = await measure(variant, round);
      results.get(variant.name).push(result);
      console.log(
        `round ${round + 1} ${variant.name.padEnd(12)} p50 ${result.p50} / p90 ${result.p90} / p99 ${result.p99} / max ${result.max} ms; ${result.cpuUs} µs CPU a hit`,
      );
    }
  }
  console.log("\nper variant, over rounds: p99 ms | µs CPU a hit");
  for (const [name, list] of results) {
    console.log(
      `${name.padEnd(12)} ${list.map((r) => r.p99).join(" ")} | ${list.map((r) => r.cpuUs).join(" ")}`,
    );
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

/** One run of a variant on a fresh server, with the setup helpers of its own checkout. */
async function measure(variant, round) {
  const { createUser, createWebsite, startProduct, stop } = await import(
    path.join(variant.tree, "bench", "processes.mjs")
  );
  const dataDir = path.join(tmp, `${variant.name}-${round}`);
  const key = await createUser(dataDir);
  const server = await startProduct({
    dataDir,
    cpu: options["server-cpu"],
    log: path.join(tmp, `${variant.name}-${round}.log`),
    env: variant.env,
    nodeArgs: variant.nodeArgs,
  });
  try {
    await createWebsite(server.url, key);
    const load = (seconds) =>
      runCommand(
        process.execPath,
        [
          path.join(BENCH_DIR, "collect-load.mjs"),
          "open",
          "--url",
          server.url,
          "--rate",
          options.rate,
          "--duration",
          seconds,
        ],
        { cpu: options["load-cpu"] },
      );
    await load(options.warmup);
    await waitQuiet({ maxBusyPct: 20 });
    const before = cpuTimeMs(server.child.pid);
    const run = lastJsonLine(await load(options.duration));
    const cpuMs = cpuTimeMs(server.child.pid) - before;
    const { p50, p90, p99, max } = run.latencyMs;
    return { p50, p90, p99, max, cpuUs: Math.round((cpuMs * 10_000) / run.accepted) / 10 };
  } finally {
    await stop(server.child);
  }
}
