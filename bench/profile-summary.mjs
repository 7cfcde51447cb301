// Summarises a V8 CPU profile (a .cpuprofile written by `node --cpu-prof`): the functions
// with the most self time, the functions with the most total (inclusive) time, and self
// time grouped by where the code lives (a package, a product file, Node internals, GC).
//
//   node bench/profile-summary.mjs FILE.cpuprofile [--top 25]

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

function place(url) {
  if (!url) return "(native/V8)";
  if (url.startsWith("node:")) return "node internals";
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const parts = url.slice(modules + 14).split("/");
    return `pkg ${parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  const dist = url.indexOf("/dist/");
  if (dist >= 0) return url.slice(dist + 6).replace(/\.js$/, "");
  const bench = url.lastIndexOf("/bench/");
  if (bench >= 0) return url.slice(bench + 1);
  return url.replace(/^file:\/\//, "");
}

function frameName(frame) {
  let name = frame.functionName || "(anonymous)";
  if (name.length > 60) name = `${name.slice(0, 57)}...`;
  if (!frame.url) return name;
  return `${name} ${place(frame.url)}:${frame.lineNumber + 1}`;
}

export function summariseProfile(file, top = 25) {
  const profile = JSON.parse(fs.readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map();
  for (const sample of profile.samples) hits.set(sample, (hits.get(sample) ?? 0) + 1);
  const totalSamples = profile.samples.length;
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, totalSamples);

  const self = new Map();
  const inclusive = new Map();
  const byPlace = new Map();
  const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value);

  // Depth-first over the call tree, keeping the names on the current path so a recursive
  // function's inclusive time is counted once.
  const root = profile.nodes[0];
  const stack = [{ node: root, path: new Set() }];
  while (stack.length > 0) {
    const { node, path: onPath } = stack.pop();
    const name = frameName(node.callFrame);
    const own = hits.get(node.id) ?? 0;
    const here = new Set(onPath);
    here.add(name);
    if (own > 0) {
      add(self, name, own);
      add(
        byPlace,
        ["(idle)", "(program)", "(garbage collector)"].includes(node.callFrame.functionName)
          ? node.callFrame.functionName
          : place(node.callFrame.url),
        own,
      );
      for (const key of here) add(inclusive, key, own);
    }
    for (const child of node.children ?? []) stack.push({ node: nodes.get(child), path: here });
  }

  const idle = self.get("(idle)") ?? 0;
  const busy = Math.max(1, totalSamples - idle);
  const rank = (map, exclude = () => false) =>
    [...map.entries()]
      .filter(([key]) => !exclude(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, count]) => ({
        name,
        ms: Math.round(count * msPerSample),
        busyPct: Math.round((count / busy) * 1000) / 10,
      }));
  const meta = (key) =>
    key.startsWith("(root)") || key === "(idle)" || key === "(program)" || key === "(garbage collector)";
  return {
    file,
    seconds: Math.round((profile.endTime - profile.startTime) / 1e4) / 100,
    samples: totalSamples,
    busyMs: Math.round(busy * msPerSample),
    idleMs: Math.round(idle * msPerSample),
    self: rank(self, (key) => key === "(idle)"),
    // Total time only of the product's own functions: the generic frames above them
    // (microtask queue, stream writes) would crowd them out.
    inclusive: rank(inclusive, (key) => meta(key) || !/ src\//.test(key)),
    byPlace: rank(byPlace, (key) => key === "(idle)"),
  };
}

export function formatProfile(summary) {
  const lines = [
    `profile ${path.basename(summary.file)}: ${summary.seconds} s, busy ${summary.busyMs} ms, idle ${summary.idleMs} ms (% of busy time)`,
  ];
  for (const [title, rows] of [
    ["self time by place", summary.byPlace],
    ["self time by function", summary.self],
    ["total time by product function", summary.inclusive],
  ]) {
    lines.push(`  ${title}:`);
    for (const row of rows)
      lines.push(`    ${String(row.busyPct).padStart(5)}%  ${String(row.ms).padStart(6)} ms  ${row.name}`);
  }
  return lines.join("\n");
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "25" } },
  });
  if (positionals.length === 0) {
    console.error("usage: profile-summary.mjs FILE.cpuprofile [--top 25]");
    process.exit(2);
  }
  for (const file of positionals) console.log(formatProfile(summariseProfile(file, Number(values.top))));
}

if (path.resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) await main();
