// Internationalised domains: stored and looked up in ASCII (punycode), shown to people in
// Unicode: the API's domain_unicode, the stats page and the password page, the email
// report. And migration 0006, which gives websites stored before it their Unicode form.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type Kysely, type Migration, Migrator, sql } from "kysely";
import { ManualClock } from "../src/clock.js";
import { lastFullPeriod } from "../src/reports/report-period.js";
import { createReportSender } from "../src/reports/report-sender.js";
import type { MetadataStore } from "../src/storage/ports.js";
import { openPostgresMetadataStore } from "../src/storage/postgres/open-postgres.js";
import type { RelationalMetadataStore } from "../src/storage/relational/metadata-store.js";
import {
  postgresMigrations,
  sqliteMigrations,
} from "../src/storage/relational/migrations/metadata-migrations.js";
import { openSqliteMetadataFile, SQLITE_METADATA_FILE } from "../src/storage/sqlite/open-sqlite.js";
import { unicodeDomain } from "../src/unicode-domain.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";
import { createTestSchema, skipWithoutPostgres, TEST_DATABASE_URL } from "./support/test-metadata.js";

const ASCII = "xn--mnchen-3ya.de";
const UNICODE = "münchen.de";

describe("unicodeDomain", () => {
  it("decodes punycode labels and leaves everything else as it is", () => {
    assert.equal(unicodeDomain(ASCII), UNICODE);
    assert.equal(unicodeDomain("xn--bcher-kva.example"), "bücher.example");
    assert.equal(unicodeDomain("example.com"), "example.com");
    assert.equal(unicodeDomain("192.0.2.1"), "192.0.2.1");
    assert.equal(unicodeDomain("xn--zz.example"), "xn--zz.example", "not punycode: only its ASCII name");
  });
});

describe("internationalised domains shown in Unicode", () => {
  const clock = new ManualClock("2026-04-13T06:00:00Z");
  let t: TestApp;
  let key: string;
  let id: number;

  before(async () => {
    t = await createTestApp({ ANALYTICS_PUBLIC_URL: "https://stats.example.org" }, clock);
    key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "https://MÜNCHEN.de/", privacy: "0", email: "1" },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().data.id;
    const locked = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "bücher.example", privacy: "2", password: "open sesame" },
    });
    assert.equal(locked.statusCode, 201, locked.body);
  });
  after(() => t.close());

  it("gives the API's website both forms: domain stays ASCII, domain_unicode is for people", async () => {
    const created = await t.call(key, { url: `/api/v1/websites/${id}` });
    assert.equal(created.json().data.domain, ASCII);
    assert.equal(created.json().data.domain_unicode, UNICODE);
    const plain = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "plain.example" },
    });
    assert.equal(plain.json().data.domain, "plain.example");
    assert.equal(plain.json().data.domain_unicode, "plain.example", "an ASCII domain reads the same");
    const list = await t.call(key, { url: "/api/v1/websites?sort=asc" });
    assert.deepEqual(
      list.json().data.map((w: { domain: string; domain_unicode: string }) => [w.domain, w.domain_unicode]),
      [
        [ASCII, UNICODE],
        ["xn--bcher-kva.example", "bücher.example"],
        ["plain.example", "plain.example"],
      ],
    );
  });

  it("heads the stats page with the Unicode name and keeps ASCII in its addresses", async () => {
    const page = await t.app.inject({ url: `/${ASCII}` });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>münchen\.de: statistics<\/title>/);
    assert.match(
      page.body,
      /<h1><small>Statistics of<\/small><span class="domain" title="münchen\.de">münchen\.de<\/span><\/h1>/,
    );
    assert.match(page.body, /<form class="picker" method="get" action="\/xn--mnchen-3ya\.de">/);
    // Typed in Unicode, the address leads to the ASCII one, the page's only address.
    const typed = await t.app.inject({ url: `/${encodeURIComponent(UNICODE)}` });
    assert.equal(typed.statusCode, 301);
    assert.equal(typed.headers.location, `/${ASCII}`);
  });

  it("names the website in Unicode on its password page", async () => {
    const page = await t.app.inject({ url: "/xn--bcher-kva.example" });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>bücher\.example: statistics<\/title>/);
    assert.match(page.body, /<h1>bücher\.example<\/h1>/);
    assert.match(page.body, /action="\/xn--bcher-kva\.example"/);
  });

  it("names the website in Unicode in the email report, linking to the ASCII address", async () => {
    const sender = createReportSender(t.container.config, t.container.metadata, t.container.events, clock);
    const [mail] = await sender.preview(lastFullPeriod("week", clock.now()));
    assert.ok(mail);
    const lines = mail.text.split("\n");
    assert.ok(lines.includes(UNICODE), mail.text);
    assert.ok(lines.includes(`  Statistics: https://stats.example.org/${ASCII}`), mail.text);
    assert.doesNotMatch(mail.text.replace(`https://stats.example.org/${ASCII}`, ""), /xn--/);
    assert.match(mail.html, /<a href="https:\/\/stats\.example\.org\/xn--mnchen-3ya\.de">münchen\.de<\/a>/);
    assert.match(mail.html, />All statistics of münchen\.de</);
    assert.doesNotMatch(mail.html.replaceAll(`https://stats.example.org/${ASCII}`, ""), /xn--/);
    assert.doesNotMatch(mail.subject, /xn--/);
  });
});

/** Migrates a fresh store to just before 0006, stores websites as then, then migrates it fully. */
async function backfilled(
  store: RelationalMetadataStore,
  migrations: Record<string, Migration>,
  schema?: string,
): Promise<MetadataStore> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const early = await migrator.migrateTo("0005-salt-expiry");
  assert.equal(early.error, undefined);
  const db = store.db as unknown as Kysely<unknown>;
  await sql`INSERT INTO users (email, is_admin, api_key_id, api_key_hash, created_at, updated_at)
    VALUES ('old@example.org', 0, 'k1', 'h1', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(db);
  for (const domain of [ASCII, "plain.example", "xn--zz.example"]) {
    await sql`INSERT INTO websites (user_id, domain, privacy, email, exclude_bots, created_at, updated_at)
      VALUES (1, ${domain}, 1, 0, 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(db);
  }
  await store.migrate();
  return store;
}

async function searchOf(store: MetadataStore, search: string): Promise<string[]> {
  const { items } = await store.websites.list({
    userId: 1,
    search,
    sortBy: "domain",
    sort: "asc",
    limit: 10,
    offset: 0,
  });
  return items.map((website) => website.domain);
}

async function assertBackfilled(store: MetadataStore): Promise<void> {
  assert.deepEqual(await searchOf(store, "münchen"), [ASCII], "found by its Unicode form");
  assert.deepEqual(await searchOf(store, "xn--mn"), [ASCII], "and by its ASCII form");
  assert.deepEqual(await searchOf(store, "plain"), ["plain.example"]);
  assert.deepEqual(await searchOf(store, "zz"), ["xn--zz.example"]);
  assert.deepEqual(await searchOf(store, "ü"), [ASCII]);
}

describe("migration 0006 on websites stored before it", () => {
  it("gives SQLite's their Unicode form", async () => {
    const dataDir = tempDir();
    const store = openSqliteMetadataFile(path.join(dataDir, SQLITE_METADATA_FILE));
    try {
      await assertBackfilled(await backfilled(store, sqliteMigrations));
    } finally {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("gives PostgreSQL's their Unicode form", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const schema = await createTestSchema(TEST_DATABASE_URL);
    const opened = openPostgresMetadataStore(schema.url);
    try {
      const { rows } = await sql<{ name: string }>`SELECT current_schema() AS name`.execute(opened.db);
      await assertBackfilled(await backfilled(opened, postgresMigrations, rows[0]?.name));
    } finally {
      await opened.close();
      await schema.drop();
    }
  });
});
