// Whether an address belongs to a data-centre network (datacenter-networks.ts): the address
// ranges those networks announce, merged and sorted, searched by bisection. The ranges come
// from the bundled @ip-location-db/asn data (411,961 IPv4 and 103,197 IPv6 rows, about 45 MB
// of CSV), kept down to the listed networks' once, into a small file that `npm run build`
// writes (dist/datacenter; under a second) and the server reads at start, so neither a start nor a
// hit parses the CSV. A lookup is one bisection over some thousands of ranges held in memory:
// well under a microsecond a hit (bench/datacenter-cost.mjs).
//
// File layout, every number an unsigned 32-bit little-endian word:
//   header   8-byte magic, IPv4 range count, IPv6 range count
//   IPv4     start, end (inclusive), sorted and disjoint
//   IPv6     start as four words (most significant first), end as four words, sorted, disjoint

import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ipv4Number, ipv6Words, lastAtMost, wordsAtMost } from "./address-numbers.js";
import { DATACENTER_NETWORKS } from "./datacenter-networks.js";

const MAGIC = Buffer.from("DCRANGE1");
const HEADER_BYTES = 16;

/** The ASN data's CSV files, addresses as text: `start,end,asn,"operator"` a line. */
export interface AsnSources {
  ipv4: string;
  ipv6: string;
}

export function bundledAsnSources(): AsnSources {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve("@ip-location-db/asn/package.json"));
  return { ipv4: path.join(dir, "asn-ipv4.csv"), ipv6: path.join(dir, "asn-ipv6.csv") };
}

/** Where `npm run build` writes the ranges (dist/datacenter). */
export const BUILT_RANGES_DIR = fileURLToPath(new URL("../../datacenter/", import.meta.url));

/** The ranges file of these sources and of today's network list: either changing names a new file. */
export function datacenterRangesPath(sources: AsnSources, dir: string): string {
  const hash = createHash("sha256");
  hash.update(MAGIC);
  for (const file of [sources.ipv4, sources.ipv6]) {
    const stat = fs.statSync(file);
    hash.update(`${path.basename(file)}:${stat.size}:${stat.mtimeMs}\n`);
  }
  for (const { asn } of DATACENTER_NETWORKS) hash.update(`${asn}\n`);
  return path.join(dir, `ranges-${hash.digest("hex").slice(0, 16)}.bin`);
}

/** The ranges file of `sources` in `dir`, written first if it is not there; other files there are removed. */
export function ensureDatacenterRanges(sources: AsnSources, dir: string): string {
  const file = datacenterRangesPath(sources, dir);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  const asns = new Set(DATACENTER_NETWORKS.map((network) => network.asn));
  const bytes = encodeRanges(
    readRanges(fs.readFileSync(sources.ipv4, "utf8"), asns, v4Key),
    readRanges(fs.readFileSync(sources.ipv6, "utf8"), asns, v6Key),
  );
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, bytes);
  fs.renameSync(partial, file); // whole or absent, as a reader may open it meanwhile
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith("ranges-") && name.endsWith(".bin") && name !== path.basename(file))
      fs.rmSync(path.join(dir, name), { force: true });
  }
  return file;
}

/**
 * The bundled data's ranges from `dir` (written there first if missing). A server whose copy
 * cannot be read or written still starts: `onError` says why, and nothing is screened, as
 * with geolocation; the other screens and every kept hit do not depend on it.
 */
export function loadDatacenterRanges(dir: string, onError: (error: unknown) => void): DatacenterRanges {
  try {
    return DatacenterRanges.fromFile(ensureDatacenterRanges(bundledAsnSources(), dir));
  } catch (error) {
    onError(error);
    return DatacenterRanges.none;
  }
}

/** The listed networks' ranges of one CSV file, sorted, overlapping and adjacent ones merged. */
export function readRanges(
  csv: string,
  asns: ReadonlySet<number>,
  key: (address: string) => bigint | null,
): [bigint, bigint][] {
  const ranges: [bigint, bigint][] = [];
  for (const line of csv.split("\n")) {
    const first = line.indexOf(",");
    const second = line.indexOf(",", first + 1);
    const third = line.indexOf(",", second + 1);
    if (third < 0 || !asns.has(Number(line.slice(second + 1, third)))) continue;
    const start = key(line.slice(0, first));
    const end = key(line.slice(first + 1, second));
    if (start !== null && end !== null && start <= end) ranges.push([start, end]);
  }
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const merged: [bigint, bigint][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range[0] <= last[1] + 1n) {
      if (range[1] > last[1]) last[1] = range[1];
    } else merged.push([range[0], range[1]]);
  }
  return merged;
}

export function v4Key(address: string): bigint | null {
  const value = ipv4Number(address);
  return value < 0 ? null : BigInt(value);
}

const KEY_WORDS = new Uint32Array(4);

function v6Key(address: string): bigint | null {
  if (!ipv6Words(address, KEY_WORDS)) return null;
  let value = 0n;
  for (const word of KEY_WORDS) value = (value << 32n) | BigInt(word);
  return value;
}

function encodeRanges(v4: readonly [bigint, bigint][], v6: readonly [bigint, bigint][]): Buffer {
  const words = new Uint32Array(v4.length * 2 + v6.length * 8);
  let at = 0;
  for (const [start, end] of v4) {
    words[at++] = Number(start);
    words[at++] = Number(end);
  }
  for (const [start, end] of v6) {
    for (const value of [start, end]) {
      for (let shift = 96n; shift >= 0n; shift -= 32n) words[at++] = Number((value >> shift) & 0xffff_ffffn);
    }
  }
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32LE(v4.length, 8);
  header.writeUInt32LE(v6.length, 12);
  const body = Buffer.from(words.buffer, words.byteOffset, words.byteLength);
  // Words are written in this machine's order; every machine Node.js runs on is little-endian.
  return Buffer.concat([header, body]);
}

/** The data-centre ranges in memory, for lookups. */
export class DatacenterRanges {
  private readonly key = new Uint32Array(4);

  private constructor(
    /** start, end pairs */
    private readonly v4: Uint32Array,
    /** start's four words, end's four words */
    private readonly v6: Uint32Array,
  ) {}

  static readonly none = new DatacenterRanges(new Uint32Array(0), new Uint32Array(0));

  static fromFile(file: string): DatacenterRanges {
    const bytes = fs.readFileSync(file);
    if (bytes.length < HEADER_BYTES || !bytes.subarray(0, 8).equals(MAGIC))
      throw new Error(`${file} is not a data-centre ranges file`);
    const v4Count = bytes.readUInt32LE(8);
    const v6Count = bytes.readUInt32LE(12);
    if (bytes.length !== HEADER_BYTES + (v4Count * 2 + v6Count * 8) * 4)
      throw new Error(`${file} is truncated: ${bytes.length} bytes`);
    // Copied into a fresh buffer, so the words are aligned whatever the read buffer's offset.
    const words = new Uint32Array(
      bytes.buffer.slice(bytes.byteOffset + HEADER_BYTES, bytes.byteOffset + bytes.length),
    );
    return new DatacenterRanges(words.subarray(0, v4Count * 2), words.subarray(v4Count * 2));
  }

  /** IPv4 and IPv6 ranges held. */
  get counts(): { ipv4: number; ipv6: number } {
    return { ipv4: this.v4.length / 2, ipv6: this.v6.length / 8 };
  }

  /** Whether a normalised client address (clientIp) is in a data-centre network. */
  has(address: string): boolean {
    if (address === "") return false;
    const { v4, v6, key } = this;
    const value = ipv4Number(address);
    if (value >= 0) {
      const at = lastAtMost(v4.length / 2, (i) => (v4[i * 2] as number) <= value);
      return at >= 0 && value <= (v4[at * 2 + 1] as number);
    }
    if (!ipv6Words(address, key)) return false;
    const at = lastAtMost(v6.length / 8, (i) => wordsAtMost(v6, i * 8, key));
    return at >= 0 && wordsAtMost(key, 0, v6.subarray(at * 8 + 4, at * 8 + 8));
  }
}
