// Writes the bundled DB-IP databases' geolocation index into dist/geo (src/enrich/geo.ts
// reads it), unless it is there already, and removes the indexes of other database
// versions. Run by `npm run build` after the TypeScript compiler; about 7 s when it writes.

import fs from "node:fs";
import path from "node:path";
import { BUILT_INDEX_DIR, bundledGeoSources, ensureGeoIndex, geoIndexPath } from "../dist/src/enrich/geo.js";

const sources = bundledGeoSources();
const written = fs.existsSync(geoIndexPath(sources, BUILT_INDEX_DIR));
const started = Date.now();
const file = await ensureGeoIndex(sources, BUILT_INDEX_DIR);
if (!written) {
  console.log(
    `geolocation index written in ${((Date.now() - started) / 1000).toFixed(1)} s: ${path.relative(process.cwd(), file)}`,
  );
}
