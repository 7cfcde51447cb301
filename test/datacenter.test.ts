// Data-centre traffic: the listed networks' ranges from the bundled ASN data
// (enrich/datacenter-ranges.ts), the website setting exclude_datacenters (on for new
// websites, off for websites from before it), and collection dropping such hits as
// `datacenter`, counted like the other reasons; imports are not screened.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { DatabaseSync } from "@photostructure/sqlite";
import { Kysely, Migrator, SqliteDialect, sql } from "kysely";
import { ManualClock } from "../src/clock.js";
import { DATACENTER_NETWORKS } from "../src/enrich/datacenter-networks.js";
import {
  BUILT_RANGES_DIR,
  bundledAsnSources,
  DatacenterRanges,
  datacenterRangesPath,
  ensureDatacenterRanges,
  loadDatacenterRanges,
  readRanges,
  v4Key,
} from "../src/enrich/datacenter-ranges.js";
import { RelationalMetadataStore } from "../src/storage/relational/metadata-store.js";
import { sqliteMigrations } from "../src/storage/relational/migrations/metadata-migrations.js";
import type { Database } from "../src/storage/relational/schema.js";
import { kyselySqliteDatabase } from "../src/storage/sqlite/sqlite-driver.js";
import { storedEvents } from "./support/stored-events.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe("data-centre networks", () => {
  const ranges = DatacenterRanges.fromFile(datacenterRangesPath(bundledAsnSources(), BUILT_RANGES_DIR));

  it("knows the clouds' and hosts' addresses, and not people's", () => {
    const cases: [string, boolean, string][] = [
      ["3.120.0.10", true, "Amazon (IPv4)"],
      ["2a05:d014::1", true, "Amazon (IPv6)"],
      ["8.8.8.8", true, "Google"],
      ["159.89.1.1", true, "DigitalOcean"],
      ["2a01:4f8:1c1c::1", true, "Hetzner (IPv6)"],
      ["51.199.252.0", true, "the first address of an Amazon range"],
      ["51.201.255.255", true, "its last"],
      ["51.199.251.255", false, "the address before it: Sky UK, a home network"],
      ["51.202.0.0", false, "the address after it"],
      ["81.2.69.142", false, "a home network in London"],
      ["2.125.160.216", false, "BT"],
      ["2a02:8108::1", false, "Vodafone Germany (IPv6)"],
      ["1.1.1.1", false, "Cloudflare: left out, as WARP and Private Relay carry people"],
      ["2606:4700::1111", false, "Cloudflare (IPv6)"],
      ["23.32.0.1", false, "Akamai's delivery network: left out, as Private Relay"],
      ["", false, "no address"],
      ["not an address", false, "no address"],
    ];
    for (const [address, expected, why] of cases)
      assert.equal(ranges.has(address), expected, `${address}: ${why}`);
    const { ipv4, ipv6 } = ranges.counts;
    assert.ok(ipv4 > 1_000 && ipv6 > 100, `${ipv4} IPv4 and ${ipv6} IPv6 ranges`);
  });

  it("lists each network once, and every one still announces addresses in the bundled data", () => {
    const asns = DATACENTER_NETWORKS.map((network) => network.asn);
    assert.equal(new Set(asns).size, asns.length, "no network listed twice");
    const seen = new Set<number>();
    const sources = bundledAsnSources();
    for (const file of [sources.ipv4, sources.ipv6]) {
      for (const line of fs.readFileSync(file, "utf8").split("\n")) {
        const asn = Number(line.split(",")[2]);
        if (asns.includes(asn)) seen.add(asn);
      }
    }
    assert.deepEqual(
      asns.filter((asn) => !seen.has(asn)),
      [],
      "networks with no ranges: gone, renumbered or mistyped",
    );
  });

  it("screens nothing, and says why, when the ranges can be neither read nor written", () => {
    const dir = tempDir("analytics-datacenter-");
    try {
      const notADirectory = `${dir}/file`;
      fs.writeFileSync(notADirectory, "");
      const errors: unknown[] = [];
      const loaded = loadDatacenterRanges(notADirectory, (error) => errors.push(error));
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]), /ENOTDIR|EEXIST/);
      assert.equal(loaded.has("3.120.0.10"), false);
      assert.deepEqual(loaded.counts, { ipv4: 0, ipv6: 0 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the listed networks' rows, sorted, overlapping and adjacent ones merged", () => {
    const csv = [
      '10.0.2.0,10.0.2.255,64500,"Host, Inc."',
      "10.0.0.0,10.0.0.255,64500,Host",
      "10.0.1.0,10.0.1.255,64501,Other host", // adjacent to both: one range
      "10.0.5.0,10.0.5.255,64502,A home network",
      "10.0.9.0,10.0.9.255,64500,Host",
      "10.0.9.128,10.0.9.200,64501,Other host", // inside the one before
      "not,a,row",
      "",
    ].join("\n");
    const key = (address: string) => v4Key(address) as bigint;
    assert.deepEqual(readRanges(csv, new Set([64500, 64501]), v4Key), [
      [key("10.0.0.0"), key("10.0.2.255")],
      [key("10.0.9.0"), key("10.0.9.255")],
    ]);
  });

  it("writes the ranges file when it is missing, removes older ones, and refuses a damaged one", () => {
    const dir = tempDir("analytics-datacenter-");
    try {
      fs.writeFileSync(`${dir}/ranges-0000000000000000.bin`, "an older list's");
      const file = ensureDatacenterRanges(bundledAsnSources(), dir);
      assert.deepEqual(fs.readdirSync(dir), [file.slice(dir.length + 1)]);
      assert.deepEqual(DatacenterRanges.fromFile(file).counts, ranges.counts);
      fs.truncateSync(file, fs.statSync(file).size - 4);
      assert.throws(() => DatacenterRanges.fromFile(file), /truncated/);
      fs.writeFileSync(file, "something else entirely");
      assert.throws(() => DatacenterRanges.fromFile(file), /not a data-centre ranges file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("collection with exclude_datacenters", () => {
  const clock = new ManualClock("2026-06-01T12:00:00Z");
  let t: TestApp;
  let key: string;
  let guarded = 0;
  let open = 0;

  const send = async (domain: string, ip: string) => {
    const response = await t.app.inject({
      method: "POST",
      url: "/api/event",
      remoteAddress: ip,
      headers: { "content-type": "text/plain", "user-agent": CHROME },
      payload: JSON.stringify({ page: `https://${domain}/` }),
    });
    assert.equal(response.statusCode, 202);
    return response.headers["x-analytics-dropped"];
  };

  before(async () => {
    t = await createTestApp({}, clock);
    key = await t.createUser();
    const create = async (form: Record<string, string>) => {
      const created = await t.call(key, { method: "POST", url: "/api/v1/websites", form });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().data as { id: number; exclude_datacenters: number };
    };
    const guardedSite = await create({ domain: "guarded.example" });
    assert.equal(guardedSite.exclude_datacenters, 1, "on for a new website");
    guarded = guardedSite.id;
    open = (await create({ domain: "open.example", exclude_datacenters: "0" })).id;
  });
  after(() => t.close());

  it("drops a hit from a data centre as datacenter and counts it, where the website excludes them", async () => {
    assert.equal(await send("guarded.example", "3.120.0.10"), "datacenter");
    assert.equal(await send("guarded.example", "::ffff:3.120.0.11"), "datacenter", "an IPv4-mapped address");
    assert.equal(await send("guarded.example", "2a05:d014::1"), "datacenter");
    assert.equal(await send("guarded.example", "81.2.69.142"), undefined, "a person's hit is kept");
    assert.equal(await send("open.example", "3.120.0.10"), undefined, "kept where the setting is off");
    await t.container.buffer.flush();
    assert.equal((await storedEvents(t.container.events, guarded)).length, 1);
    assert.equal((await storedEvents(t.container.events, open)).length, 1);

    const dropped = await t.call(key, {
      url: `/api/v1/stats/${guarded}/dropped?from=2026-06-01&to=2026-06-01`,
    });
    assert.equal(dropped.statusCode, 200, dropped.body);
    assert.equal(dropped.json().data.totals.datacenter, 3);
    assert.equal(dropped.json().data.totals.total, 3);
    const none = await t.call(key, { url: `/api/v1/stats/${open}/dropped?from=2026-06-01&to=2026-06-01` });
    assert.equal(none.json().data.totals.total, 0);
  });

  it("follows a change of the setting at once", async () => {
    const changed = await t.call(key, {
      method: "PUT",
      url: `/api/v1/websites/${open}`,
      form: { exclude_datacenters: "1" },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().data.exclude_datacenters, 1);
    assert.equal(await send("open.example", "3.120.0.12"), "datacenter");
  });

  it("does not screen imports: they are the owner's own history", async () => {
    const response = await t.call(key, {
      method: "POST",
      url: "/api/v1/events",
      json: {
        events: [
          {
            website_id: guarded,
            ts: "2026-05-31T10:00:00Z",
            page: "https://guarded.example/",
            ip: "3.120.0.10",
            user_agent: CHROME,
          },
        ],
      },
    });
    assert.equal(response.statusCode, 202, response.body);
    assert.equal(response.json().accepted, 1);
    assert.equal("datacenter" in response.json().dropped, false, "an import has no such reason");
  });
});

describe("exclude_datacenters on an existing store", () => {
  it("is 0 for the websites from before the setting, so an upgrade changes no one's counting", async () => {
    const dir = tempDir("analytics-datacenter-migration-");
    const store = new RelationalMetadataStore(
      new Kysely<Database>({
        dialect: new SqliteDialect({
          database: kyselySqliteDatabase(new DatabaseSync(`${dir}/m.sqlite`), `${dir}/m.sqlite`),
        }),
      }),
      { migrations: sqliteMigrations, uniqueViolation: () => null },
    );
    try {
      const migrator = new Migrator({
        db: store.db,
        provider: { getMigrations: async () => sqliteMigrations },
      });
      assert.equal((await migrator.migrateTo("0012-dropped-hits")).error, undefined);
      const db = store.db as unknown as Kysely<unknown>;
      await sql`INSERT INTO users (email, is_admin, api_key_id, api_key_hash, created_at, updated_at)
        VALUES ('old@example.org', 0, 'k1', 'h1', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(
        db,
      );
      await sql`INSERT INTO websites (user_id, domain, privacy, email, exclude_bots, created_at, updated_at)
        VALUES (1, 'old.example', 1, 0, 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(db);
      await store.migrate();
      assert.equal((await store.websites.find(1, 1))?.excludeDatacenters, 0);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
