// The thread that writes a geolocation index (geo.ts starts it; geo-index-build.ts does the work).

import { workerData } from "node:worker_threads";
import { type GeoSources, writeGeoIndex } from "./geo-index-build.js";

const { sources, target } = workerData as { sources: GeoSources; target: string };
writeGeoIndex(sources, target);
