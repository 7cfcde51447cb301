// Writes a geolocation index (geo-index.ts) from `.mmdb` databases: a walk of each search
// tree in address order, every leaf a range whose record's location is looked up once per
// record, neighbours with the same location merged (the bundled IPv4 database has 6.3
// million leaves, 3.4 million ranges once merged). The bundled databases take about 10 s
// and 0.5 GB; `npm run build` writes their index, and a database given by
// ANALYTICS_GEOIP_DB is indexed once, in a thread of its own (geo.ts).

import fs from "node:fs";
import path from "node:path";
import { Reader, type Response } from "maxmind";
import {
  encodeLocation,
  type GeoRecord,
  HEADER_BYTES,
  MAGIC,
  NO_LOCATION,
  SPARSE_STEP,
  V4_RANGE_BYTES,
  V6_RANGE_BYTES,
} from "./geo-index.js";

/** The databases an index is written from: one file may serve both (a MaxMind City database does). */
export interface GeoSources {
  ipv4: string;
  ipv6: string;
}

/** Ranges of one address family, in address order, as they are found. */
class Ranges {
  private starts: Buffer;
  private locations: Uint32Array;
  count = 0;
  private last = -1;

  constructor(private readonly keyBytes: number) {
    this.starts = Buffer.alloc(keyBytes * 1024);
    this.locations = new Uint32Array(1024);
  }

  /** A range from `start` (its first keyBytes bytes) on, unless it continues the last one. */
  add(start: Uint8Array, location: number): void {
    if (location === this.last) return;
    this.last = location;
    if (this.count === this.locations.length) {
      const starts = Buffer.alloc(this.starts.length * 2);
      this.starts.copy(starts);
      this.starts = starts;
      const locations = new Uint32Array(this.locations.length * 2);
      locations.set(this.locations);
      this.locations = locations;
    }
    this.starts.set(start.subarray(0, this.keyBytes), this.count * this.keyBytes);
    this.locations[this.count] = location;
    this.count++;
  }

  /** The ranges as the index stores them, and every SPARSE_STEP-th start. */
  encode(): { ranges: Buffer; sparse: Buffer } {
    const { keyBytes } = this;
    const rangeBytes = keyBytes === 4 ? V4_RANGE_BYTES : V6_RANGE_BYTES;
    const ranges = Buffer.alloc(this.count * rangeBytes);
    const sparse = Buffer.alloc(Math.ceil(this.count / SPARSE_STEP) * keyBytes);
    for (let i = 0; i < this.count; i++) {
      const start = this.starts.subarray(i * keyBytes, (i + 1) * keyBytes);
      const at = i * rangeBytes;
      // IPv4 starts are numbers (little-endian), IPv6 ones bytes compared in order.
      if (keyBytes === 4) ranges.writeUInt32LE(start.readUInt32BE(0), at);
      else start.copy(ranges, at);
      ranges.writeUInt32LE(this.locations[i] as number, at + keyBytes);
      if (i % SPARSE_STEP === 0) ranges.copy(sparse, (i / SPARSE_STEP) * keyBytes, at, at + keyBytes);
    }
    return { ranges, sparse };
  }
}

/** One database's search tree (the mmdb format: nodes of two records, 24, 28 or 32 bits each). */
class SearchTree {
  readonly reader: Reader<Response>;
  private readonly nodeCount: number;
  private readonly nodeBytes: number;
  private readonly recordBits: number;

  constructor(private readonly db: Buffer) {
    if (db[0] === 0x1f && db[1] === 0x8b) throw new Error("a gzip file, not an mmdb database");
    this.reader = new Reader<Response>(db);
    this.nodeCount = this.reader.metadata.nodeCount;
    this.nodeBytes = this.reader.metadata.nodeByteSize;
    this.recordBits = this.reader.metadata.recordSize;
  }

  /** The node or leaf that `bit` (0 left, 1 right) leads to from `node`. */
  child(node: number, bit: number): number {
    const at = node * this.nodeBytes;
    const db = this.db;
    switch (this.recordBits) {
      case 24:
        return db.readUIntBE(at + bit * 3, 3);
      case 28:
        return bit
          ? ((db[at + 3] as number) & 0x0f) * 2 ** 24 + db.readUIntBE(at + 4, 3)
          : ((db[at + 3] as number) >> 4) * 2 ** 24 + db.readUIntBE(at, 3);
      case 32:
        return db.readUInt32BE(at + bit * 4);
      default:
        throw new Error(`unsupported record size ${this.recordBits}`);
    }
  }

  isNode(value: number): boolean {
    return value < this.nodeCount;
  }

  isEmpty(value: number): boolean {
    return value === this.nodeCount;
  }

  /** Where IPv4 addresses begin: the root of an IPv4 tree, ::/96 of an IPv6 one (maybe a leaf). */
  ipv4Root(): number {
    if (this.reader.metadata.ipVersion === 4) return 0;
    let node = 0;
    for (let depth = 0; depth < 96 && this.isNode(node); depth++) node = this.child(node, 0);
    return node;
  }
}

/**
 * Adds the leaves under `root` (addresses of `bits` bits) to `ranges`, in address order;
 * `locationOf(leaf, address)` names a leaf's location (address: a start inside it).
 */
function walk(
  tree: SearchTree,
  root: number,
  bits: number,
  ranges: Ranges,
  locationOf: (leaf: number, address: Uint8Array) => number,
): void {
  const address = new Uint8Array(16);
  const visit = (value: number, depth: number): void => {
    if (tree.isNode(value) && depth < bits) {
      visit(tree.child(value, 0), depth + 1);
      address[depth >> 3] = (address[depth >> 3] as number) | (0x80 >> (depth & 7));
      visit(tree.child(value, 1), depth + 1);
      address[depth >> 3] = (address[depth >> 3] as number) & ~(0x80 >> (depth & 7));
      return;
    }
    ranges.add(address, tree.isEmpty(value) || tree.isNode(value) ? NO_LOCATION : locationOf(value, address));
  };
  visit(root, 0);
}

function addressText(address: Uint8Array, bits: number): string {
  if (bits === 32) return Array.from(address.subarray(0, 4)).join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((address[i] as number) << 8) | (address[i + 1] as number)).toString(16));
  return groups.join(":");
}

/** Writes the index of `sources` to `target` (through a temporary file, so it appears whole). */
export function writeGeoIndex(sources: GeoSources, target: string): void {
  const lines: string[] = [];
  const lineNumbers = new Map<string, number>();
  const trees = new Map<string, SearchTree>();
  const treeOf = (file: string) => {
    let tree = trees.get(file);
    if (!tree) {
      tree = new SearchTree(fs.readFileSync(file));
      trees.set(file, tree);
    }
    return tree;
  };
  const family = (file: string, bits: 32 | 128): Ranges => {
    const tree = treeOf(file);
    const ranges = new Ranges(bits / 8);
    const byLeaf = new Map<number, number>();
    const locationOf = (leaf: number, address: Uint8Array): number => {
      let number = byLeaf.get(leaf);
      if (number === undefined) {
        const line = encodeLocation((tree.reader.get(addressText(address, bits)) ?? {}) as GeoRecord);
        if (line === null) number = NO_LOCATION;
        else {
          number = lineNumbers.get(line) ?? lines.push(line) - 1;
          lineNumbers.set(line, number);
        }
        byLeaf.set(leaf, number);
      }
      return number;
    };
    walk(tree, bits === 32 ? tree.ipv4Root() : 0, bits, ranges, locationOf);
    return ranges;
  };
  const v4 = family(sources.ipv4, 32).encode();
  const v6 = family(sources.ipv6, 128).encode();
  const locations = Buffer.from(lines.join("\n"), "utf8");
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(lines.length, 8);
  header.writeUInt32LE(locations.length, 12);
  header.writeUInt32LE(v4.ranges.length / V4_RANGE_BYTES, 16);
  header.writeUInt32LE(v6.ranges.length / V6_RANGE_BYTES, 20);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(
      temporary,
      Buffer.concat([header, locations, v4.ranges, v6.ranges, v4.sparse, v6.sparse]),
    );
    fs.renameSync(temporary, target);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
