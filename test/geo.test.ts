// Geolocation against the bundled DB-IP databases: real lookups in the contract's
// `CODE:Name` forms, addresses with no answer, the bounded cache of recent answers, and
// databases shared with another thread.

import assert from "node:assert/strict";
import { test } from "node:test";
import { bundledGeoDatabases, MmdbGeoLookup, UNKNOWN_LOCATION } from "../src/enrich/geo.js";

test("an IPv4 and an IPv6 address resolve to country, city and continent", async () => {
  const geo = new MmdbGeoLookup(bundledGeoDatabases());
  assert.deepEqual(await geo.lookup("8.8.8.8"), {
    country: "US:United States",
    city: "US:Mountain View",
    continent: "NA:North America",
  });
  const v6 = await geo.lookup("2a00:1450:4001:80b::200e"); // a Google address in Europe
  assert.match(v6.country, /^[A-Z]{2}:\S/);
  assert.match(v6.continent, /^[A-Z]{2}:\S/);
});

test("no address, a private address and a malformed one are unknown", async () => {
  const geo = new MmdbGeoLookup(bundledGeoDatabases());
  assert.deepEqual(await geo.lookup(""), UNKNOWN_LOCATION);
  assert.deepEqual(await geo.lookup("not-an-ip"), UNKNOWN_LOCATION);
  const privateAddress = await geo.lookup("10.1.2.3");
  assert.equal(privateAddress.city, "");
});

test("answers stay the same when the cache of recent addresses is full and evicts", async () => {
  const fresh = new MmdbGeoLookup(bundledGeoDatabases());
  const tiny = new MmdbGeoLookup(bundledGeoDatabases(), 2);
  const addresses = ["8.8.8.8", "1.1.1.1", "81.2.69.142", "8.8.8.8", "1.1.1.1", "81.2.69.142"];
  const expected = new Map<string, unknown>();
  for (const address of new Set(addresses)) expected.set(address, await fresh.lookup(address));
  for (const address of addresses) assert.deepEqual(await tiny.lookup(address), expected.get(address));
  assert.notDeepEqual(expected.get("8.8.8.8"), expected.get("81.2.69.142"));
});

test("a lookup given another's databases answers from the same memory, without reading the files", async () => {
  const first = new MmdbGeoLookup(bundledGeoDatabases());
  const databases = await first.databases();
  assert.equal(databases.size, 2);
  for (const bytes of databases.values()) assert.ok(bytes instanceof SharedArrayBuffer);
  // Paths that do not exist: only the shared bytes can answer.
  const files = { ipv4: "/nonexistent/ipv4.mmdb", ipv6: "/nonexistent/ipv6.mmdb" };
  const shared = new Map([
    [files.ipv4, databases.get(bundledGeoDatabases().ipv4) as SharedArrayBuffer],
    [files.ipv6, databases.get(bundledGeoDatabases().ipv6) as SharedArrayBuffer],
  ]);
  const second = new MmdbGeoLookup(files, undefined, shared);
  assert.deepEqual(await second.lookup("8.8.8.8"), await first.lookup("8.8.8.8"));
  assert.equal((await second.databases()).get(files.ipv4), shared.get(files.ipv4));
  // Without them the same paths are unknown.
  assert.deepEqual(await new MmdbGeoLookup(files).lookup("8.8.8.8"), UNKNOWN_LOCATION);
});
