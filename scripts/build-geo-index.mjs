// Writes the bundled DB-IP databases' geolocation index into dist/geo (src/enrich/geo.ts
// reads it), unless it is there already; removes the indexes of other database versions.
// Run by `npm run build` after the TypeScript compiler; about 10 s when it writes.

import fs from "node:fs";
import path from "node:path";
import { BUILT_INDEX_DIR, bundledGeoSources, geoIndexPath } from "../dist/src/enrich/geo.js";
import { writeGeoIndex } from "../dist/src/enrich/geo-index-build.js";

const sources = bundledGeoSources();
const target = geoIndexPath(sources, BUILT_INDEX_DIR);
if (!fs.existsSync(target)) {
  const started = Date.now();
  writeGeoIndex(sources, target);
  console.log(
    `geolocation index written in ${((Date.now() - started) / 1000).toFixed(1)} s: ${path.relative(process.cwd(), target)}`,
  );
}
for (const name of fs.readdirSync(BUILT_INDEX_DIR)) {
  if (path.join(BUILT_INDEX_DIR, name) !== target)
    fs.rmSync(path.join(BUILT_INDEX_DIR, name), { force: true });
}
