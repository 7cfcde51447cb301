// Writes the data-centre networks' address ranges into dist/datacenter (src/enrich/
// datacenter-ranges.ts reads them) from the bundled ASN data, unless they are there already
// for this data and network list. Run by `npm run build` after the TypeScript compiler.

import fs from "node:fs";
import path from "node:path";
import {
  BUILT_RANGES_DIR,
  bundledAsnSources,
  DatacenterRanges,
  datacenterRangesPath,
  ensureDatacenterRanges,
} from "../dist/src/enrich/datacenter-ranges.js";

const sources = bundledAsnSources();
const written = fs.existsSync(datacenterRangesPath(sources, BUILT_RANGES_DIR));
const started = Date.now();
const file = ensureDatacenterRanges(sources, BUILT_RANGES_DIR);
if (!written) {
  const { ipv4, ipv6 } = DatacenterRanges.fromFile(file).counts;
  console.log(
    `data-centre ranges written in ${((Date.now() - started) / 1000).toFixed(1)} s (${ipv4} IPv4, ${ipv6} IPv6): ${path.relative(process.cwd(), file)}`,
  );
}
