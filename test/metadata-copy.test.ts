// `analytics metadata copy --to TARGET`, run as a separate process, from SQLite to PostgreSQL,
// back, and SQLite to SQLite: an app on the target then answers as the source's did (same
// API key, websites with their ids and exclusion lists, password, page cookie, salts, report
// log, counts of dropped hits) and creates new rows after the copied ids. A non-empty target
// is refused untouched.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { ACCESS_COOKIE } from "../src/pages/access-cookie.js";
import { type MetadataLocation, metadataLocationFrom } from "../src/storage/metadata-location.js";
import { openMetadataAt } from "../src/storage/open-storage.js";
import {
  METADATA_TABLES,
  type MetadataRow,
  type MetadataStore,
  type MetadataTable,
} from "../src/storage/ports.js";
import { runCli } from "./support/cli.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";
import { createTestSchema, skipWithoutPostgres, TEST_DATABASE_URL } from "./support/test-metadata.js";

const NOW = "2026-05-04T12:00:00Z";
const OWNER_EMAIL = "owner@copy.example";
const PASSWORD = "correct horse";
const REPORT_PERIOD = "week:2026-04-27";
/** Metadata in the data directory's SQLite file, whatever the environment says. */
const SQLITE_ENV = { ANALYTICS_DATABASE_URL: "" };

/** What populate() stored and the checks need. */
interface Fixture {
  ownerKey: string;
  replacedKey: string;
  otherKey: string;
  ownerId: number;
  otherId: number;
  websiteIds: number[];
  /** The stats-page cookie the source issued for the password-protected website. */
  pageCookie: string;
}

/** An app over a store that outlives it (the test removes the store). */
function appOn(dataDir: string, metadataEnv: Record<string, string>, clock: ManualClock) {
  return createTestApp({}, clock, { stores: { dataDir, metadataEnv } });
}

async function created(t: TestApp, key: string, form: Record<string, string>): Promise<number> {
  const response = await t.call(key, { method: "POST", url: "/api/v1/websites", form });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().data.id;
}

/** Fills the source the way users do: through the services and the API. */
async function populate(t: TestApp, clock: ManualClock): Promise<Fixture> {
  const owner = await t.container.users.create({ email: OWNER_EMAIL, name: "Owner" });
  const other = await t.container.users.create({ email: "other@copy.example" });
  const rotated = await t.container.users.rotateKey(OWNER_EMAIL);
  const gone = await created(t, rotated.apiKey, { domain: "gone.example" });
  const lists = await created(t, rotated.apiKey, {
    domain: "lists.example",
    privacy: "0",
    email: "1",
    exclude_params: "utm_source\nfbclid",
    exclude_ips: "10.0.0.0/8\n2001:db8::/32",
  });
  const secret = await created(t, rotated.apiKey, {
    domain: "secret.example",
    privacy: "2",
    password: PASSWORD,
  });
  const others = await created(t, other.apiKey, {
    domain: "others.example",
    exclude_params: "ref,utm_medium",
  });
  // A deleted website leaves a gap in the ids, which the copy must keep.
  const deleted = await t.call(rotated.apiKey, { method: "DELETE", url: `/api/v1/websites/${gone}` });
  assert.equal(deleted.statusCode, 200, deleted.body);

  const { salts, reports } = t.container.metadata;
  const keepUntil = new Date(clock.now().getTime() + 2 * 86_400_000);
  await salts.getOrCreate([{ day: "2026-05-03", candidate: "salt-of-yesterday", keepUntil }], clock.now());
  await salts.getOrCreate([{ day: "2026-05-04", candidate: "salt-of-today", keepUntil }], clock.now());
  const sent = await reports.claim(owner.user.id, REPORT_PERIOD, clock.now(), new Date(0));
  assert.ok(sent);
  await reports.markSent(owner.user.id, REPORT_PERIOD, sent, clock.now());
  const failed = await reports.claim(other.user.id, REPORT_PERIOD, clock.now(), new Date(0));
  assert.ok(failed);
  await reports.markFailed(other.user.id, REPORT_PERIOD, failed, "550 mailbox unavailable\nsecond line");

  // More rows than one batch of the copy reads and writes, in the tables keyed by text, by
  // (user, period) and by (website, day, reason).
  const drops = [];
  for (let i = 0; i < 600; i++) {
    const day = new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10);
    await salts.getOrCreate([{ day, candidate: `salt-${i}`, keepUntil }], clock.now());
    for (const userId of [owner.user.id, other.user.id]) {
      assert.ok(await reports.claim(userId, `day:${day}`, clock.now(), new Date(0)));
    }
    drops.push({ websiteId: lists, day, reason: "bot", count: i + 1 });
    if (i % 3 === 0) drops.push({ websiteId: others, day, reason: "excluded_ip", count: 2 });
  }
  await t.container.metadata.drops.add(drops);

  const signIn = await signInWithPassword(t);
  assert.equal(signIn.statusCode, 303, signIn.body);
  const setCookie = String(signIn.headers["set-cookie"]);
  const pageCookie = /^[^=]+=([^;]*)/.exec(setCookie)?.[1];
  assert.ok(pageCookie, setCookie);
  return {
    ownerKey: rotated.apiKey,
    replacedKey: owner.apiKey,
    otherKey: other.apiKey,
    ownerId: owner.user.id,
    otherId: other.user.id,
    websiteIds: [lists, secret, others],
    pageCookie,
  };
}

function signInWithPassword(t: TestApp) {
  return t.app.inject({
    method: "POST",
    url: "/secret.example",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ password: PASSWORD }).toString(),
  });
}

/** The target answers every question about the copied data as the source does. */
async function assertSameAnswers(source: TestApp, target: TestApp, fixture: Fixture): Promise<void> {
  const urls = [
    "/api/v1/websites?per_page=100",
    "/api/v1/websites?sort_by=domain&sort=asc",
    ...fixture.websiteIds.map((id) => `/api/v1/websites/${id}`),
    ...fixture.websiteIds.map((id) => `/api/v1/stats/${id}/dropped?from=2019-12-30&to=2021-08-31`),
  ];
  for (const key of [fixture.ownerKey, fixture.otherKey]) {
    for (const url of urls) {
      const expected = await source.call(key, { url });
      const actual = await target.call(key, { url });
      assert.equal(actual.statusCode, expected.statusCode, `${url}: ${actual.body}`);
      assert.deepEqual(actual.json(), expected.json(), url);
    }
  }
  const list = (await target.call(fixture.ownerKey, { url: "/api/v1/websites?per_page=100" })).json();
  assert.equal(list.meta.total, 2);
  const lists = list.data.find((website: { domain: string }) => website.domain === "lists.example");
  assert.equal(lists.exclude_params, "utm_source\nfbclid");
  assert.equal(lists.exclude_ips, "10.0.0.0/8\n2001:db8::/32");
  assert.equal((await target.call(fixture.replacedKey, { url: "/api/v1/websites" })).statusCode, 401);

  // The password hash and the page-cookie secret came along: the password still opens the
  // page, and a cookie the source issued is still good.
  assert.equal((await signInWithPassword(target)).statusCode, 303);
  const page = await target.app.inject({
    url: "/secret.example",
    headers: { cookie: `${ACCESS_COOKIE}=${fixture.pageCookie}` },
  });
  assert.equal(page.statusCode, 200);
  assert.ok(page.body.includes('data-total="visitors"'), "the source's cookie opens the stats page");

  const now = new Date(NOW);
  const saltOf = async (day: string) =>
    (await target.container.metadata.salts.getOrCreate([{ day, candidate: "new", keepUntil: now }], now)).get(
      day,
    );
  assert.equal(await saltOf("2026-05-03"), "salt-of-yesterday");
  assert.equal(await saltOf("2026-05-04"), "salt-of-today");
  for (const userId of [fixture.ownerId, fixture.otherId]) {
    const entry = await target.container.metadata.reports.find(userId, REPORT_PERIOD);
    assert.ok(entry, `report log of user ${userId}`);
    assert.deepEqual(entry, await source.container.metadata.reports.find(userId, REPORT_PERIOD));
  }

  assert.deepEqual(await allRows(target.container.metadata), await allRows(source.container.metadata));

  // New rows get ids after the copied ones (the engine's id generators were moved past them).
  const newWebsite = await created(target, fixture.ownerKey, { domain: "after-copy.example" });
  assert.equal(newWebsite, Math.max(...fixture.websiteIds) + 1);
  const newUser = await target.container.users.create({ email: "after-copy@copy.example" });
  assert.equal(newUser.user.id, Math.max(fixture.ownerId, fixture.otherId) + 1);
}

function assertCopied(result: ReturnType<typeof runCli>): void {
  assert.equal(result.status, 0, result.stderr);
  for (const line of [
    "users: 2 rows",
    "websites: 3 rows",
    "visitor_salts: 602 rows",
    "report_log: 1202 rows",
    "dropped_hits: 800 rows",
  ]) {
    assert.ok(result.stdout.includes(line), `${line} in:\n${result.stdout}`);
  }
  assert.match(result.stdout, /server_secrets: 1 row\b/);
}

/** Every row of every table, in key order. */
async function allRows(store: MetadataStore): Promise<Record<MetadataTable, MetadataRow[]>> {
  const rows = {} as Record<MetadataTable, MetadataRow[]>;
  for (const table of METADATA_TABLES) {
    rows[table] = [];
    for await (const batch of store.exportRows(table)) rows[table].push(...batch);
  }
  return rows;
}

/** Every row of the store at `location`, to tell whether it changed. */
async function snapshot(location: MetadataLocation): Promise<Record<MetadataTable, MetadataRow[]>> {
  const store = openMetadataAt(location);
  try {
    return await allRows(store);
  } finally {
    await store.close();
  }
}

/** Runs `work` with fresh directories, removed afterwards. */
async function withDirs(count: number, work: (...dirs: string[]) => Promise<void>): Promise<void> {
  const dirs = Array.from({ length: count }, () => tempDir("analytics-copy-"));
  try {
    await work(...dirs);
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("analytics metadata copy", () => {
  it("copies SQLite to PostgreSQL: the same key sees the same websites there", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const schema = await createTestSchema(TEST_DATABASE_URL);
    try {
      await withDirs(2, async (sourceDir, targetDir) => {
        const clock = new ManualClock(NOW);
        const source = await appOn(sourceDir, {}, clock);
        try {
          const fixture = await populate(source, clock);
          const result = runCli(
            ["metadata", "copy", "--data-dir", sourceDir, "--to", schema.url],
            SQLITE_ENV,
          );
          assertCopied(result);
          assert.match(result.stdout, /to PostgreSQL at 127\.0\.0\.1:\d+\//);
          const target = await appOn(targetDir, { ANALYTICS_DATABASE_URL: schema.url }, clock);
          try {
            await assertSameAnswers(source, target, fixture);
          } finally {
            await target.close();
          }
        } finally {
          await source.close();
        }
      });
    } finally {
      await schema.drop();
    }
  });

  it("copies PostgreSQL to SQLite: the same key sees the same websites there", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const schema = await createTestSchema(TEST_DATABASE_URL);
    try {
      await withDirs(2, async (sourceDir, targetDir) => {
        const clock = new ManualClock(NOW);
        const source = await appOn(sourceDir, { ANALYTICS_DATABASE_URL: schema.url }, clock);
        try {
          const fixture = await populate(source, clock);
          const result = runCli(["metadata", "copy", "--to", targetDir], {
            ANALYTICS_DATABASE_URL: schema.url,
          });
          assertCopied(result);
          assert.ok(
            fs.existsSync(path.join(targetDir, "metadata.sqlite")),
            "the data directory's metadata file",
          );
          const target = await appOn(targetDir, {}, clock);
          try {
            await assertSameAnswers(source, target, fixture);
          } finally {
            await target.close();
          }
        } finally {
          await source.close();
        }
      });
    } finally {
      await schema.drop();
    }
  });

  it("copies SQLite to another data directory", async () => {
    await withDirs(2, async (sourceDir, targetDir) => {
      const clock = new ManualClock(NOW);
      const source = await appOn(sourceDir, {}, clock);
      try {
        const fixture = await populate(source, clock);
        assertCopied(runCli(["metadata", "copy", "--data-dir", sourceDir, "--to", targetDir], SQLITE_ENV));
        const target = await appOn(targetDir, {}, clock);
        try {
          await assertSameAnswers(source, target, fixture);
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
  });

  it("refuses a non-empty SQLite target and leaves it unchanged", async () => {
    await withDirs(2, async (sourceDir, targetDir) => {
      const clock = new ManualClock(NOW);
      const source = await appOn(sourceDir, {}, clock);
      try {
        await populate(source, clock);
      } finally {
        await source.close();
      }
      const existing = runCli(
        ["users", "create", "--email", "keep@copy.example", "--data-dir", targetDir],
        SQLITE_ENV,
      );
      assert.equal(existing.status, 0, existing.stderr);
      // Named as the file this time: the data directory's metadata.sqlite.
      const target = metadataLocationFrom(path.join(targetDir, "metadata.sqlite"));
      const before = await snapshot(target);
      assert.deepEqual(
        before.users.map((row) => row.email),
        ["keep@copy.example"],
      );
      const result = runCli(
        ["metadata", "copy", "--data-dir", sourceDir, "--to", path.join(targetDir, "metadata.sqlite")],
        SQLITE_ENV,
      );
      assert.equal(result.status, 1, result.stdout);
      assert.match(result.stderr, /is not empty \(users: 1\).*nothing was copied/);
      assert.doesNotMatch(result.stdout, /Copied/);
      assert.deepEqual(await snapshot(target), before);
    });
  });

  it("refuses a non-empty PostgreSQL target and leaves it unchanged", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const schema = await createTestSchema(TEST_DATABASE_URL);
    try {
      await withDirs(1, async (sourceDir) => {
        const clock = new ManualClock(NOW);
        const source = await appOn(sourceDir, {}, clock);
        try {
          await populate(source, clock);
        } finally {
          await source.close();
        }
        const existing = runCli(["users", "create", "--email", "keep@copy.example"], {
          ANALYTICS_DATABASE_URL: schema.url,
        });
        assert.equal(existing.status, 0, existing.stderr);
        const target: MetadataLocation = { engine: "postgres", url: schema.url };
        const before = await snapshot(target);
        assert.deepEqual(
          before.users.map((row) => row.email),
          ["keep@copy.example"],
        );
        const result = runCli(["metadata", "copy", "--data-dir", sourceDir, "--to", schema.url], SQLITE_ENV);
        assert.equal(result.status, 1, result.stdout);
        assert.match(result.stderr, /PostgreSQL at 127\.0\.0\.1:\d+\/\w+ is not empty \(users: 1\)/);
        assert.deepEqual(await snapshot(target), before);
      });
    } finally {
      await schema.drop();
    }
  });

  it("says what is wrong with a missing, unknown or same target, or a missing source (exit 2)", async () => {
    await withDirs(1, async (sourceDir) => {
      const made = runCli(
        ["users", "create", "--email", "one@copy.example", "--data-dir", sourceDir],
        SQLITE_ENV,
      );
      assert.equal(made.status, 0, made.stderr);
      const cases: [string[], RegExp][] = [
        [["--data-dir", sourceDir], /--to is required/],
        [
          ["--data-dir", sourceDir, "--to", "mysql://db/analytics"],
          /postgres:\/\/.*data directory or an SQLite file/,
        ],
        [["--data-dir", sourceDir, "--to", sourceDir], /names the configured metadata store itself/],
        // A target under a file: one line, no stack.
        [
          ["--data-dir", sourceDir, "--to", path.join(sourceDir, "metadata.sqlite", "copy")],
          /^The data directory .*copy cannot be created: .*metadata\.sqlite is a file, not a directory\.\n$/,
        ],
        [
          ["--data-dir", path.join(sourceDir, "missing"), "--to", path.join(sourceDir, "copy")],
          /No metadata store to copy: .*missing.metadata\.sqlite does not exist/,
        ],
        // An existing file that is no SQLite database (an export file given by mistake): one
        // line, no stack, and the file is left as it was.
        [
          ["--data-dir", sourceDir, "--to", path.join(sourceDir, "events.ndjson")],
          /^--to .*events\.ndjson: the file is not an SQLite database\.\n$/,
        ],
      ];
      fs.writeFileSync(path.join(sourceDir, "events.ndjson"), '{"format":"analytics-events"}\n');
      for (const [args, message] of cases) {
        const result = runCli(["metadata", "copy", ...args], SQLITE_ENV);
        assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
        assert.match(result.stderr, message);
      }
      assert.ok(!fs.existsSync(path.join(sourceDir, "copy")), "nothing is created on bad usage");
      assert.equal(
        fs.readFileSync(path.join(sourceDir, "events.ndjson"), "utf8"),
        '{"format":"analytics-events"}\n',
      );
      assert.ok(!fs.existsSync(path.join(sourceDir, "missing")), "a missing source is not created");
    });
  });
});
