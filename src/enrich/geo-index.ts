// The geolocation index: a file of sorted address ranges, each naming a location, read a
// block at a time. An `.mmdb` database is a search tree that the `maxmind` reader needs
// wholly in memory (the bundled DB-IP files are 134 MB, more than a third of the server's
// memory budget); this file holds the same answers as ranges (geo-index-build.ts writes it
// from the tree), and a lookup reads one block of it: a binary search over every 64th
// range start (held in memory, about 1.2 MB), then one read of 64 ranges (0.5-1.3 KB, from
// the page cache once warm). A thread holds about 13 MB of it (the location lines, that
// sparse index and a bounded cache of blocks) instead of the database and a cache of
// decoded records.
//
// Layout (numbers little-endian unless said):
//   header   8-byte magic, u32 location count, u32 location bytes, u32 IPv4 ranges, u32 IPv6 ranges
//   locations  UTF-8, one per line: `CODE\tCity` (see encodeLocation)
//   IPv4 ranges  start u32, location u32 (NO_LOCATION: no answer), sorted, the first at 0
//   IPv6 ranges  start 16 bytes big-endian, location u32, sorted, the first at ::
//   sparse   every SPARSE_STEP-th IPv4 start (u32), then every SPARSE_STEP-th IPv6 start (16 bytes)

import fs from "node:fs";
import { continents, countries } from "countries-list";
import { ipv4Number, ipv6Words, lastAtMost, wordsAtMost } from "./address-numbers.js";
import { RecentMap } from "./recent-map.js";

export interface GeoLocation {
  country: string;
  city: string;
  continent: string;
}

export const UNKNOWN_LOCATION: GeoLocation = Object.freeze({ country: "", city: "", continent: "" });

export const MAGIC = Buffer.from("GEOIDX01");
export const HEADER_BYTES = 24;
export const NO_LOCATION = 0xffff_ffff;
export const SPARSE_STEP = 64;
export const V4_RANGE_BYTES = 8;
export const V6_RANGE_BYTES = 20;
/** Decoded locations kept: 10,000 is as many cities as most sites see in a day. */
const DECODED_LOCATIONS = 10_000;
const CACHED_BLOCKS = 4096;

type CountryCode = keyof typeof countries;
type ContinentCode = keyof typeof continents;

/** A record as DB-IP (ip-location-db) or MaxMind City store it. */
export interface GeoRecord {
  country_code?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string; names?: Record<string, string> };
  continent?: { code?: string };
}

/**
 * A record's location as a line of the index: `CODE\tCity`, with the record's country name
 * and continent code after it only when countries-list does not know the code (so a line
 * is about 15 bytes). Null when the record names no country.
 */
export function encodeLocation(record: GeoRecord): string | null {
  const code = (record.country_code ?? record.country?.iso_code ?? "").toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return null;
  const city = typeof record.city === "string" ? record.city : (record.city?.names?.en ?? "");
  const clean = (text: string) => text.replace(/[\t\n]/g, " ");
  if (countries[code as CountryCode]) return `${code}\t${clean(city)}`;
  return [code, clean(city), clean(record.country?.names?.en ?? code), record.continent?.code ?? ""].join(
    "\t",
  );
}

/** A line of the index in the contract's `CODE:Name` forms. */
export function decodeLocation(line: string): GeoLocation {
  const [code = "", city = "", countryName, continentCode] = line.split("\t");
  const known = countries[code as CountryCode];
  const continent = (known?.continent ?? continentCode ?? "") as ContinentCode;
  const continentName = continents[continent];
  return {
    country: `${code}:${known?.name ?? countryName ?? code}`,
    city: city ? `${code}:${city}` : "",
    continent: continentName ? `${continent}:${continentName}` : "",
  };
}

/** An index file opened for lookups: the location names and the sparse starts in memory. */
export class GeoIndex {
  /** The location lines, and where each begins (one more: the end). */
  private readonly locations: Buffer;
  private readonly lineStarts: Uint32Array;
  private readonly v4Count: number;
  private readonly v6Count: number;
  private readonly v4Offset: number;
  private readonly v6Offset: number;
  private readonly v4Sparse: Uint32Array;
  /** Every SPARSE_STEP-th IPv6 start as four 32-bit words. */
  private readonly v6Sparse: Uint32Array;
  /** The IPv6 address being looked up, as words (ipv6Words). */
  private readonly key = new Uint32Array(4);
  /**
   * Blocks read lately, per family: a read costs 1-4 µs (a system call), more than the rest
   * of a lookup, and traffic keeps coming from the same networks. At most about 2 MB (IPv4)
   * and 5 MB (IPv6).
   */
  private readonly v4Blocks = new RecentMap<number, Buffer>(CACHED_BLOCKS);
  private readonly v6Blocks = new RecentMap<number, Uint32Array>(CACHED_BLOCKS);
  /** Locations decoded lately: a few hundred thousand exist, traffic keeps coming from fewer. */
  private readonly decoded = new RecentMap<number, GeoLocation>(DECODED_LOCATIONS);

  private constructor(private readonly fd: number) {
    const header = Buffer.alloc(HEADER_BYTES);
    fs.readSync(fd, header, 0, HEADER_BYTES, 0);
    if (!header.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error("not a geolocation index");
    const locationBytes = header.readUInt32LE(12);
    this.v4Count = header.readUInt32LE(16);
    this.v6Count = header.readUInt32LE(20);
    this.locations = readAt(fd, HEADER_BYTES, locationBytes);
    this.lineStarts = new Uint32Array(header.readUInt32LE(8) + 1);
    for (let line = 1, at = 0; line < this.lineStarts.length; line++) {
      at = this.locations.indexOf(10, at) + 1 || locationBytes + 1; // the last line ends without a newline
      this.lineStarts[line] = at;
    }
    this.v4Offset = HEADER_BYTES + locationBytes;
    this.v6Offset = this.v4Offset + this.v4Count * V4_RANGE_BYTES;
    const sparseOffset = this.v6Offset + this.v6Count * V6_RANGE_BYTES;
    const v4SparseBytes = Math.ceil(this.v4Count / SPARSE_STEP) * 4;
    const v4Sparse = readAt(fd, sparseOffset, v4SparseBytes);
    this.v4Sparse = Uint32Array.from({ length: v4SparseBytes / 4 }, (_, i) => v4Sparse.readUInt32LE(i * 4));
    const v6Sparse = readAt(fd, sparseOffset + v4SparseBytes, Math.ceil(this.v6Count / SPARSE_STEP) * 16);
    this.v6Sparse = Uint32Array.from({ length: v6Sparse.length / 4 }, (_, i) => v6Sparse.readUInt32BE(i * 4));
  }

  static open(file: string): GeoIndex {
    const fd = fs.openSync(file, "r");
    try {
      return new GeoIndex(fd);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  /** Where an address is, or UNKNOWN_LOCATION (no answer, or not an address). */
  find(address: string): GeoLocation {
    const v4 = ipv4Number(address);
    let location: number;
    if (v4 >= 0) location = this.findV4(v4);
    else if (ipv6Words(address, this.key)) location = this.findV6(this.key);
    else return UNKNOWN_LOCATION;
    if (location === NO_LOCATION) return UNKNOWN_LOCATION;
    let known = this.decoded.get(location);
    if (!known) {
      const start = this.lineStarts[location] ?? 0;
      known = decodeLocation(
        this.locations.toString("utf8", start, (this.lineStarts[location + 1] ?? start + 1) - 1),
      );
      this.decoded.set(location, known);
    }
    return known;
  }

  private findV4(key: number): number {
    const sparse = this.v4Sparse;
    const blockIndex = lastAtMost(sparse.length, (i) => (sparse[i] as number) <= key);
    if (blockIndex < 0) return NO_LOCATION;
    const block = this.block(
      this.v4Blocks,
      blockIndex,
      this.v4Count,
      this.v4Offset,
      V4_RANGE_BYTES,
      (b) => b,
    );
    const entry = lastAtMost(
      block.length / V4_RANGE_BYTES,
      (i) => block.readUInt32LE(i * V4_RANGE_BYTES) <= key,
    );
    return block.readUInt32LE(entry * V4_RANGE_BYTES + 4);
  }

  private findV6(key: Uint32Array): number {
    const sparse = this.v6Sparse;
    const blockIndex = lastAtMost(sparse.length / 4, (i) => wordsAtMost(sparse, i * 4, key));
    if (blockIndex < 0) return NO_LOCATION;
    const block = this.block(this.v6Blocks, blockIndex, this.v6Count, this.v6Offset, V6_RANGE_BYTES, v6Words);
    const entry = lastAtMost(block.length / 5, (i) => wordsAtMost(block, i * 5, key));
    return block[entry * 5 + 4] as number;
  }

  /** The index-th run of SPARSE_STEP ranges of a family, from `cache` or read now (and made a `T` by `decode`). */
  private block<T>(
    cache: RecentMap<number, T>,
    index: number,
    total: number,
    offset: number,
    rangeBytes: number,
    decode: (bytes: Buffer) => T,
  ): T {
    let block = cache.get(index);
    if (!block) {
      const count = Math.min(SPARSE_STEP, total - index * SPARSE_STEP);
      block = decode(readAt(this.fd, offset + index * SPARSE_STEP * rangeBytes, count * rangeBytes));
      cache.set(index, block);
    }
    return block;
  }
}

/** IPv6 ranges as five words each: the start's four, most significant first, then the location. */
function v6Words(bytes: Buffer): Uint32Array {
  const words = new Uint32Array((bytes.length / V6_RANGE_BYTES) * 5);
  for (let i = 0; i < words.length / 5; i++) {
    const at = i * V6_RANGE_BYTES;
    for (let k = 0; k < 4; k++) words[i * 5 + k] = bytes.readUInt32BE(at + k * 4);
    words[i * 5 + 4] = bytes.readUInt32LE(at + 16);
  }
  return words;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const read = fs.readSync(fd, bytes, done, length - done, offset + done);
    if (read === 0) throw new Error("the geolocation index ended early");
    done += read;
  }
  return bytes;
}
