// The report log in the real SQLite metadata store: recipients are users with websites that
// have email = 1; a claim is exclusive (also across two connections, as two servers), is
// retaken after a failure or when stale, and only its holder records the outcome. Also:
// a migration merged later under an earlier name is still applied.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { DatabaseSync } from "@photostructure/sqlite";
import { Kysely, SqliteDialect, sql } from "kysely";
import { loadConfig } from "../src/config.js";
import { openMetadataStore } from "../src/storage/open-storage.js";
import type { MetadataStore } from "../src/storage/ports.js";
import { RelationalMetadataStore } from "../src/storage/relational/metadata-store.js";
import { sqliteMigrations } from "../src/storage/relational/migrations/metadata-migrations.js";
import type { Database } from "../src/storage/relational/schema.js";
import { kyselySqliteDatabase } from "../src/storage/sqlite/sqlite-driver.js";
import { tempDir } from "./support/test-app.js";
import { freshMetadata, type TestMetadata } from "./support/test-metadata.js";

const T0 = new Date("2026-04-13T06:00:00Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

async function addUser(store: MetadataStore, email: string, name: string | null = null) {
  return store.users.create({
    email,
    name,
    isAdmin: false,
    apiKeyId: email,
    apiKeyHash: "x",
    passwordHash: null,
    now: T0,
  });
}

async function addWebsite(store: MetadataStore, userId: number, domain: string, email: 0 | 1) {
  return store.websites.create({
    userId,
    domain,
    privacy: 1,
    passwordHash: null,
    email,
    excludeBots: 1,
    excludeDatacenters: 1,
    excludeParams: null,
    excludeIps: null,
    timezone: "UTC",
    now: T0,
  });
}

describe("report log", () => {
  const dataDir = tempDir("analytics-report-log-");
  let metadata: TestMetadata;
  let store: MetadataStore;
  let other: MetadataStore;
  let alice: number;
  let bob: number;

  before(async () => {
    metadata = await freshMetadata(); // the engine under test
    const config = loadConfig({ ANALYTICS_DATA_DIR: dataDir, ...metadata.env });
    store = openMetadataStore(config);
    await store.migrate();
    other = openMetadataStore(config); // a second server on the same database
    alice = (await addUser(store, "alice@example.org", "Alice")).id;
    bob = (await addUser(store, "bob@example.org")).id;
    const carol = (await addUser(store, "carol@example.org")).id;
    await addWebsite(store, alice, "b-site.example", 1);
    await addWebsite(store, alice, "a-site.example", 1);
    await addWebsite(store, alice, "quiet.example", 0);
    await addWebsite(store, bob, "bob.example", 1);
    await addWebsite(store, carol, "carol.example", 0);
  });

  after(async () => {
    await store.close();
    await other.close();
    await metadata.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists users with email-report websites, and only those websites", async () => {
    assert.deepEqual(await store.reports.recipients(), [
      {
        user: { id: alice, email: "alice@example.org", name: "Alice" },
        websites: [
          { id: 2, domain: "a-site.example" },
          { id: 1, domain: "b-site.example" },
        ],
      },
      {
        user: { id: bob, email: "bob@example.org", name: null },
        websites: [{ id: 4, domain: "bob.example" }],
      },
    ]);
  });

  it("lets exactly one of several racing senders claim a report", async () => {
    const key = "week:2026-04-06";
    const claims = await Promise.all(
      [store, other, store, other].map((s) => s.reports.claim(alice, key, T0, minutes(-60))),
    );
    assert.equal(claims.filter((token) => token !== null).length, 1);
    const entry = await store.reports.find(alice, key);
    assert.equal(entry?.status, "claimed");
    assert.equal(entry?.attempts, 1);
  });

  it("records sent only for the claim's holder, and never lets it be claimed again", async () => {
    const key = "week:2026-03-30";
    const token = await store.reports.claim(bob, key, T0, minutes(-60));
    assert.ok(token);
    await store.reports.markSent(bob, key, "someone-else", minutes(1));
    assert.equal((await store.reports.find(bob, key))?.status, "claimed");
    await store.reports.markSent(bob, key, token, minutes(1));
    const entry = await store.reports.find(bob, key);
    assert.equal(entry?.status, "sent");
    assert.deepEqual(entry?.sentAt, minutes(1));
    assert.deepEqual(await store.reports.sentUsers(key), new Set([bob]));
    assert.equal(await other.reports.claim(bob, key, minutes(600), minutes(540)), null, "sent is final");
  });

  it("retakes a failed report at once and a claim only once it is stale", async () => {
    const key = "month:2026-03";
    const first = await store.reports.claim(alice, key, T0, minutes(-60));
    assert.ok(first);
    assert.equal(await other.reports.claim(alice, key, minutes(59), minutes(-1)), null, "fresh claim holds");
    const stale = await other.reports.claim(alice, key, minutes(61), minutes(1));
    assert.ok(stale, "a claim older than the stale limit is retaken");
    await store.reports.markFailed(alice, key, first, "too late: no longer the holder");
    assert.equal((await store.reports.find(alice, key))?.status, "claimed");
    await other.reports.markFailed(alice, key, stale, "550 mailbox unavailable");
    const failed = await store.reports.find(alice, key);
    assert.equal(failed?.status, "failed");
    assert.equal(failed?.lastError, "550 mailbox unavailable");
    assert.deepEqual(await store.reports.sentUsers(key), new Set());
    const retry = await store.reports.claim(alice, key, minutes(62), minutes(2));
    assert.ok(retry, "a failed report is claimed again");
    assert.equal((await store.reports.find(alice, key))?.attempts, 3);
  });

  it("applies a migration merged later with an earlier name", async () => {
    const dir = tempDir("analytics-migrations-");
    const open = (migrations: typeof sqliteMigrations) => {
      const db = new Kysely<Database>({
        dialect: new SqliteDialect({
          database: kyselySqliteDatabase(new DatabaseSync(`${dir}/m.sqlite`), `${dir}/m.sqlite`),
        }),
      });
      return new RelationalMetadataStore(db, { migrations, uniqueViolation: () => null });
    };
    const first = open(sqliteMigrations); // already has 0004-report-log

    await first.migrate();
    await first.close();
    const later = open({
      ...sqliteMigrations,
      "0003-pages-test": {
        async up(db) {
          await db.schema.createTable("merged_later").addColumn("id", "integer").execute();
        },
      },
    });
    try {
      await later.migrate();
      const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(
        later.db,
      );
      const names = tables.rows.map((row) => row.name);
      assert.ok(names.includes("merged_later"));
      assert.ok(names.includes("report_log"));
    } finally {
      await later.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
