// Geolocation (geo.ts, geo-index.ts, geo-index-build.ts): real lookups in the contract's
// `CODE:Name` forms, addresses with no answer, and the index answering exactly as the
// `.mmdb` databases it was written from: random addresses and both sides of range
// boundaries, IPv4 and IPv6, for the bundled databases and for one file holding both
// families (as a MaxMind City database does), written in a thread into a data directory.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { continents, countries } from "countries-list";
import { Reader, type Response } from "maxmind";
import { ipv4Number, ipv6Words } from "../src/enrich/address-numbers.js";
import {
  BUILT_INDEX_DIR,
  bundledGeoSources,
  ensureGeoIndex,
  type GeoLocation,
  type GeoSources,
  geoIndexPath,
  IndexedGeoLookup,
  UNKNOWN_LOCATION,
} from "../src/enrich/geo.js";
import {
  decodeLocation,
  encodeLocation,
  GeoIndex,
  HEADER_BYTES,
  V4_RANGE_BYTES,
  V6_RANGE_BYTES,
} from "../src/enrich/geo-index.js";

const bundled = () => new IndexedGeoLookup(() => ensureGeoIndex(bundledGeoSources(), BUILT_INDEX_DIR));

/** What the product answered when it read the `.mmdb` databases directly: the reference. */
function fromRecord(record: Record<string, unknown> | null): GeoLocation {
  const r = (record ?? {}) as {
    country_code?: string;
    city?: string | { names?: Record<string, string> };
    country?: { iso_code?: string; names?: Record<string, string> };
    continent?: { code?: string };
  };
  const code = (r.country_code ?? r.country?.iso_code ?? "").toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return UNKNOWN_LOCATION;
  const known = countries[code as keyof typeof countries];
  const city = typeof r.city === "string" ? r.city : (r.city?.names?.en ?? "");
  const continent = (known?.continent ?? r.continent?.code ?? "") as keyof typeof continents;
  return {
    country: `${code}:${known?.name ?? r.country?.names?.en ?? code}`,
    city: city ? `${code}:${city}` : "",
    continent: continents[continent] ? `${continent}:${continents[continent]}` : "",
  };
}

/** A deterministic stream of 32-bit numbers (xorshift). */
function randomWords(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
const v6Text = (bytes: Buffer) =>
  Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16)).join(":");

/** Addresses to compare: random ones, and the first and the one before of sampled ranges. */
function addressesToCheck(indexFile: string, seed: number): string[] {
  const next = randomWords(seed);
  const file = fs.readFileSync(indexFile);
  const locationBytes = file.readUInt32LE(12);
  const v4Count = file.readUInt32LE(16);
  const v6Count = file.readUInt32LE(20);
  const v4At = HEADER_BYTES + locationBytes;
  const v6At = v4At + v4Count * V4_RANGE_BYTES;
  const addresses: string[] = [];
  for (let i = 0; i < 3000; i++) addresses.push(v4Text(next()));
  for (let i = 0; i < 3000; i++) {
    const bytes = Buffer.alloc(16);
    // mostly 2000::/3, where addresses are given out
    for (let word = 0; word < 4; word++) bytes.writeUInt32BE(next(), word * 4);
    if (i % 4 !== 0) bytes[0] = 0x20 | ((bytes[0] as number) & 0x1f);
    addresses.push(v6Text(bytes));
  }
  for (let i = 0; i < 1500; i++) {
    const start = file.readUInt32LE(v4At + (next() % v4Count) * V4_RANGE_BYTES);
    addresses.push(v4Text(start));
    if (start > 0) addresses.push(v4Text(start - 1));
  }
  for (let i = 0; i < 1500; i++) {
    const at = v6At + (next() % v6Count) * V6_RANGE_BYTES;
    const start = Buffer.from(file.subarray(at, at + 16));
    addresses.push(v6Text(start));
    const before = Buffer.from(start);
    for (let byte = 15; byte >= 0; byte--) {
      before[byte] = ((before[byte] as number) - 1) & 255;
      if (before[byte] !== 255) break; // no borrow
    }
    if (!start.equals(Buffer.alloc(16))) addresses.push(v6Text(before));
  }
  addresses.push(
    "0.0.0.0",
    "255.255.255.255",
    "::",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "::ffff:8.8.8.8",
  );
  return addresses;
}

function assertSameAnswers(sources: GeoSources, indexFile: string, seed: number): void {
  const readers = { ipv4: readerOf(sources.ipv4), ipv6: readerOf(sources.ipv6) };
  const index = GeoIndex.open(indexFile);
  try {
    let known = 0;
    for (const address of addressesToCheck(indexFile, seed)) {
      const reader = address.includes(":") ? readers.ipv6 : readers.ipv4;
      const expected = fromRecord(reader.get(address) as Record<string, unknown> | null);
      assert.deepEqual(index.find(address), expected, address);
      if (expected.country) known++;
    }
    assert.ok(known > 3000, `only ${known} addresses had an answer`);
  } finally {
    index.close();
  }
}

function readerOf(file: string): Reader<Response> {
  return new Reader<Response>(fs.readFileSync(file));
}

describe("geolocation", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "geo-"));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("resolves an IPv4 and an IPv6 address to country, city and continent", async () => {
    const geo = bundled();
    assert.deepEqual(await geo.lookup("8.8.8.8"), {
      country: "US:United States",
      city: "US:Mountain View",
      continent: "NA:North America",
    });
    assert.deepEqual(geo.lookupNow("8.8.8.8"), await geo.lookup("8.8.8.8"));
    const v6 = await geo.lookup("2a00:1450:4001:80b::200e"); // a Google address in Europe
    assert.match(v6.country, /^[A-Z]{2}:\S/);
    assert.match(v6.continent, /^[A-Z]{2}:\S/);
  });

  it("answers no address, a private address and a malformed one as unknown", async () => {
    const geo = bundled();
    assert.deepEqual(await geo.lookup(""), UNKNOWN_LOCATION);
    assert.deepEqual(await geo.lookup("not-an-ip"), UNKNOWN_LOCATION);
    assert.deepEqual(await geo.lookup("1.2.3"), UNKNOWN_LOCATION);
    assert.equal((await geo.lookup("10.1.2.3")).city, "");
  });

  it("answers as the bundled databases do, at random and on both sides of range boundaries", () => {
    assertSameAnswers(bundledGeoSources(), geoIndexPath(bundledGeoSources(), BUILT_INDEX_DIR), 7);
  });

  it("indexes a given database holding both families once, in a thread, into the data directory, replacing an earlier index", async () => {
    // The bundled IPv6 file stands for a MaxMind City file: one IPv6 tree, IPv4 under ::/96.
    const file = path.join(dataDir, "both.mmdb");
    fs.copyFileSync(bundledGeoSources().ipv6, file);
    const sources = { ipv4: file, ipv6: file };
    const dir = path.join(dataDir, "geo");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "both-1-1.v1.geoindex"), "the index of an earlier version of the file");
    const indexFile = await ensureGeoIndex(sources, dir);
    assert.equal(path.dirname(indexFile), dir);
    const written = fs.statSync(indexFile).mtimeMs;
    assert.equal(await ensureGeoIndex(sources, dir), indexFile);
    assert.equal(fs.statSync(indexFile).mtimeMs, written, "written once");
    assert.deepEqual(
      fs.readdirSync(dir),
      [path.basename(indexFile)],
      "no temporary file, no earlier index left",
    );
    assertSameAnswers(sources, indexFile, 11);
  });

  it("answers every address as unknown, and says why, when the database cannot be indexed", async () => {
    const junk = path.join(dataDir, "junk.mmdb");
    fs.writeFileSync(junk, "not a database");
    const errors: unknown[] = [];
    const geo = new IndexedGeoLookup(
      () => ensureGeoIndex({ ipv4: junk, ipv6: junk }, path.join(dataDir, "junk")),
      (error) => errors.push(error),
    );
    assert.deepEqual(await geo.lookup("8.8.8.8"), UNKNOWN_LOCATION);
    assert.deepEqual(geo.lookupNow("1.1.1.1"), UNKNOWN_LOCATION, "not tried again");
    assert.equal(errors.length, 1);
  });

  it("keeps a MaxMind record's names, and a country unknown to the name list", () => {
    const maxmind = {
      country: { iso_code: "de", names: { en: "Germany" } },
      city: { names: { en: "Berlin" } },
    };
    assert.deepEqual(decodeLocation(encodeLocation(maxmind) ?? ""), fromRecord(maxmind));
    const unlisted = { country: { iso_code: "QZ", names: { en: "Qz\tland" } }, continent: { code: "EU" } };
    assert.deepEqual(decodeLocation(encodeLocation(unlisted) ?? ""), {
      country: "QZ:Qz land",
      city: "",
      continent: "EU:Europe",
    });
    assert.equal(encodeLocation({ city: "Nowhere" }), null);
  });

  it("reads addresses in every form node:net accepts, and refuses the rest", () => {
    const v4: [string, number][] = [
      ["1.2.3.4", 0x01020304],
      ["0.0.0.0", 0],
      ["255.255.255.255", 0xffff_ffff],
      ["01.2.3.4", -1],
      ["1.2.3", -1],
      ["1.2.3.4.", -1],
      ["1..2.3", -1],
      ["256.1.1.1", -1],
      ["1.2.3.4 ", -1],
      ["", -1],
      ["::1", -1],
    ];
    for (const [text, value] of v4) assert.equal(ipv4Number(text), value, text);
    const v6: [string, number[] | null][] = [
      ["::", [0, 0, 0, 0]],
      ["::1", [0, 0, 0, 1]],
      ["1::", [0x1_0000, 0, 0, 0]],
      ["2001:DB8::8:800:200c:417a", [0x2001_0db8, 0, 0x0008_0800, 0x200c_417a]],
      ["2001:db8:0:0:1:0:0:1", [0x2001_0db8, 0, 0x0001_0000, 1]],
      ["::ffff:1.2.3.4", [0, 0, 0xffff, 0x0102_0304]],
      ["64:ff9b::8.8.8.8", [0x0064_ff9b, 0, 0, 0x0808_0808]],
      ["fe80::1%eth0", [0xfe80_0000, 0, 0, 1]],
      ["1:::2", null],
      ["2001:db8::g", null],
      ["1.2.3.4", null],
    ];
    const words = new Uint32Array(4);
    for (const [text, expected] of v6) {
      assert.equal(ipv6Words(text, words), expected !== null, text);
      if (expected) assert.deepEqual(Array.from(words), expected, text);
    }
  });
});
