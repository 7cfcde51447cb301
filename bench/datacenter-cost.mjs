// What the data-centre screen costs (src/enrich/datacenter-ranges.ts): loading the built
// ranges file at start; one lookup, timed over the seeded traffic's visitor addresses
// (people: none is in a listed network) and over addresses inside the listed networks'
// ranges, with the bare loop over the same strings subtracted; and the screening of the
// seeded traffic's hits (pipeline.ts, user agents cached as in the server) with and without
// the data-centre step, alternating in one process. The per-hit CPU of the whole collection
// path, before and after, is bench/collect-alternate.mjs's (noisier: a server and its load).
//
// Prints one JSON line.
//
//   npm run build && node bench/datacenter-cost.mjs [--addresses 200000] [--rounds 7]

import fs from "node:fs";
import { parseArgs } from "node:util";
import {
  BUILT_RANGES_DIR,
  bundledAsnSources,
  DatacenterRanges,
  datacenterRangesPath,
} from "../dist/src/enrich/datacenter-ranges.js";
import { UserAgentClassifier } from "../dist/src/enrich/user-agent.js";
import { IngestPipeline } from "../dist/src/ingest/pipeline.js";
import { trackedWebsite } from "../dist/src/ingest/website-directory.js";
import { createTraffic, seededRandom } from "./traffic.mjs";

const { values: options } = parseArgs({
  options: {
    addresses: { type: "string", default: "200000" },
    rounds: { type: "string", default: "7" },
  },
});
const count = Number(options.addresses);
const rounds = Number(options.rounds);

const file = datacenterRangesPath(bundledAsnSources(), BUILT_RANGES_DIR);
const loadStarted = process.hrtime.bigint();
const ranges = DatacenterRanges.fromFile(file);
const loadMs = Number(process.hrtime.bigint() - loadStarted) / 1e6;

const traffic = createTraffic({ visitors: count });
const people = Array.from({ length: count }, (_, i) => traffic.visitors.at(i).ip);

// Addresses in the listed networks: random IPv4 addresses kept when they are inside.
const random = seededRandom(7);
const hosted = [];
while (hosted.length < count) {
  const address = [0, 0, 0, 0].map(() => Math.floor(random() * 256)).join(".");
  if (ranges.has(address)) hosted.push(address);
}

/** Median ns per address of `work` over the list, the bare loop's subtracted. */
function timed(list, work) {
  const samples = [];
  for (let round = 0; round < rounds; round++) {
    let sink = 0;
    const started = process.hrtime.bigint();
    for (const address of list) if (work(address)) sink++;
    const elapsed = Number(process.hrtime.bigint() - started);
    const bareStarted = process.hrtime.bigint();
    for (const address of list) if (address.length === 0) sink++;
    const bare = Number(process.hrtime.bigint() - bareStarted);
    samples.push((elapsed - bare) / list.length);
    if (sink < 0) console.log(sink); // keeps the loops from being removed
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** Median ns a hit of screening the traffic's hits, without and with the data-centre step. */
function screening() {
  const website = trackedWebsite({
    id: 1,
    domain: traffic.domain,
    excludeBots: 1,
    excludeDatacenters: 1,
    excludeIps: null,
    excludeParams: null,
    timezone: "UTC",
  });
  const parts = {
    directory: { cached: () => website, byHost: async () => website, lastKnown: () => website },
    userAgents: new UserAgentClassifier(),
    geo: null, // screening reads neither
    visitors: null,
  };
  const pipelines = {
    without: new IngestPipeline(parts),
    with: new IngestPipeline({ ...parts, datacenters: ranges }),
  };
  const hits = Array.from({ length: count }, () => ({ ...traffic.next(), ts: new Date() }));
  const samples = { without: [], with: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ["without", "with"] : ["with", "without"]) {
      let kept = 0;
      const started = process.hrtime.bigint();
      for (const hit of hits) if (pipelines[name].screenPublic(hit).kept) kept++;
      samples[name].push(Number(process.hrtime.bigint() - started) / hits.length);
      if (kept !== hits.length)
        throw new Error(`${name}: ${hits.length - kept} of the people's hits dropped`);
    }
  }
  const median = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
  return {
    without: Number(median(samples.without).toFixed(0)),
    with: Number(median(samples.with).toFixed(0)),
  };
}

const peopleInside = people.filter((address) => ranges.has(address)).length;
const result = {
  ranges: ranges.counts,
  fileBytes: fs.statSync(file).size,
  loadMs: Number(loadMs.toFixed(2)),
  addresses: count,
  peopleInListedNetworks: peopleInside,
  nsPerLookupPeople: Number(timed(people, (address) => ranges.has(address)).toFixed(1)),
  nsPerLookupHosted: Number(timed(hosted, (address) => ranges.has(address)).toFixed(1)),
  screenNsPerHit: screening(),
  ipv6ShareOfPeople: Number((people.filter((address) => address.includes(":")).length / count).toFixed(3)),
};
console.log(JSON.stringify(result));
