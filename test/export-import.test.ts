// `analytics export` and `analytics import`: events exported from one data directory and
// imported into another give every statistic the same answer; visitors keep their hashes
// where the store still knows them; a second import and a damaged file are refused.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { VisitorHasher } from "../src/ingest/visitor-hasher.js";
import { STATS } from "../src/stats/catalog.js";
import { runCli } from "./support/cli.js";
import {
  asImport,
  EXPECTED,
  FIXTURE_DOMAIN,
  FIXTURE_HITS,
  FIXTURE_SETTINGS,
} from "./support/stats-fixture.js";
import { createTestApp, type TestApp, tempDir } from "./support/test-app.js";
import { freshMetadata, METADATA_ENGINE, type TestMetadata } from "./support/test-metadata.js";

type Stats = Record<string, [string, number][]>;
const RANGE = "from=2026-04-01&to=2026-04-03";
/** "Now" is the fixture's last day: its and the day before's visitor hashes are still kept. */
const NOW = "2026-04-03T23:59:30Z";

async function allStats(t: TestApp, key: string, id: number): Promise<Stats> {
  const result: Stats = {};
  for (const stat of STATS) {
    const response = await t.call(key, {
      url: `/api/v1/stats/${id}?name=${stat.name}&${RANGE}&per_page=100`,
    });
    assert.equal(response.statusCode, 200, response.body);
    result[stat.name] = response
      .json()
      .data.map((row: { value: string; count: number }) => [row.value, row.count]);
  }
  return result;
}

describe("export and import of events", () => {
  const work = tempDir("analytics-export-");
  const source = path.join(work, "source");
  const target = path.join(work, "target");
  const exportFile = path.join(work, "events.ndjson");
  let metadata: TestMetadata;
  let key = "";
  const ids: number[] = [];
  const before_: Stats[] = [];

  before(async () => {
    metadata = await freshMetadata();
    const app = await createTestApp({}, new ManualClock(NOW), {
      stores: { dataDir: source, metadataEnv: metadata.env },
    });
    try {
      key = await app.createUser();
      for (const domain of [FIXTURE_DOMAIN, `second.${FIXTURE_DOMAIN}`]) {
        const created = await app.call(key, {
          method: "POST",
          url: "/api/v1/websites",
          form: { domain, ...FIXTURE_SETTINGS },
        });
        assert.equal(created.statusCode, 201);
        const id = created.json().data.id as number;
        ids.push(id);
        const hits = domain === FIXTURE_DOMAIN ? asImport(id) : asImport(id).filter((_, i) => i % 2 === 0);
        const imported = await app.call(key, {
          method: "POST",
          url: "/api/v1/events",
          json: { events: hits.map((hit) => ({ ...hit, page: hit.page.replace(FIXTURE_DOMAIN, domain) })) },
        });
        assert.equal(imported.statusCode, 202, imported.body);
      }
      for (const id of ids) before_.push(await allStats(app, key, id));
    } finally {
      await app.close();
    }
  });
  after(async () => {
    await metadata.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCli(args, metadata.env);

  it("exports every event as NDJSON, with the visitor hashes the store still keeps", async () => {
    const result = cli(["export", "--data-dir", source]);
    assert.equal(result.status, 0, result.stderr);
    fs.writeFileSync(exportFile, result.stdout);
    const lines = result.stdout.trimEnd().split("\n");
    assert.deepEqual(JSON.parse(lines[0] as string), { format: "analytics-events", version: 1 });
    const events = lines.slice(1).map((line) => JSON.parse(line));
    const accepted = FIXTURE_HITS.length - 2; // the fixture's bot and excluded address
    assert.ok(events.length > accepted, `${events.length} events`);
    assert.match(result.stderr, new RegExp(`Exported ${events.length} events`));
    assert.deepEqual(
      events.map((event) => event.websiteId),
      [...events.map((event) => event.websiteId)].sort((a, b) => a - b),
      "by website, then time",
    );

    // The visitors are the hashes the server computed: the salts of the days an import
    // wrote live on for 48 hours after it, and the store keeps the hashes as long.
    const app = await createTestApp({}, new ManualClock(NOW), {
      stores: { dataDir: source, metadataEnv: metadata.env },
    });
    try {
      const hasher = new VisitorHasher(app.container.metadata.salts, new ManualClock(NOW));
      for (const day of ["2026-04-01", "2026-04-03"]) {
        const hit = FIXTURE_HITS.find((hit) => hit.ts.startsWith(day) && !/bot/i.test(hit.userAgent));
        assert.ok(hit);
        const hash = await hasher.visitorId(
          Math.floor(Date.parse(hit.ts) / 86_400_000),
          ids[0] as number,
          hit.ip,
          hit.userAgent,
        );
        const exported = events.find(
          (event) => event.websiteId === ids[0] && event.ts === new Date(hit.ts).toISOString(),
        );
        assert.equal(exported?.visitor, hash.toString(), day);
      }
    } finally {
      await app.close();
    }
  });

  it("filters by website and by days", () => {
    const one = cli([
      "export",
      "--website",
      String(ids[1]),
      "--from",
      "2026-04-02",
      "--to",
      "2026-04-02",
      "--data-dir",
      source,
    ]);
    assert.equal(one.status, 0, one.stderr);
    const events = one.stdout
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line));
    assert.ok(events.length > 0);
    for (const event of events) {
      assert.equal(event.websiteId, ids[1]);
      assert.ok(event.ts.startsWith("2026-04-02"), event.ts);
    }
    for (const bad of [
      ["--website", "x"],
      ["--from", "2026-02-30"],
      ["--from", "2026-04-03", "--to", "2026-04-01"],
    ]) {
      assert.equal(cli(["export", ...bad, "--data-dir", source]).status, 2, bad.join(" "));
    }
    // A mistyped id is not an empty export: nothing on standard output, exit 1, the id named.
    const missing = cli(["export", "--website", "999", "--data-dir", source]);
    assert.equal(missing.status, 1, missing.stderr);
    assert.equal(missing.stdout, "");
    assert.match(missing.stderr, /no website with id 999: nothing was exported/);
  });

  it("imports into another data directory with every statistic identical", async () => {
    // The metadata moves with the events: PostgreSQL is shared as it is; SQLite is copied.
    fs.mkdirSync(target, { recursive: true });
    if (METADATA_ENGINE === "sqlite")
      fs.copyFileSync(path.join(source, "metadata.sqlite"), path.join(target, "metadata.sqlite"));
    const result = cli(["import", "--file", exportFile, "--data-dir", target]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /Imported \d+ events/);
    const app = await createTestApp({}, new ManualClock(NOW), {
      stores: { dataDir: target, metadataEnv: metadata.env },
    });
    try {
      assert.deepEqual(await allStats(app, key, ids[0] as number), EXPECTED);
      for (const [i, id] of ids.entries()) assert.deepEqual(await allStats(app, key, id), before_[i]);
    } finally {
      await app.close();
    }
  });

  it("refuses a second import of the same websites and a damaged file, saying where", () => {
    const again = cli(["import", "--file", exportFile, "--data-dir", target]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already has events of website/);
    const lines = fs.readFileSync(exportFile, "utf8").split("\n");
    const damaged = path.join(work, "damaged.ndjson");
    fs.writeFileSync(damaged, [lines[0], lines[1]?.replace(/"kind":"\w+"/, '"kind":"click"')].join("\n"));
    const fresh = path.join(work, "fresh");
    const bad = cli(["import", "--file", damaged, "--data-dir", fresh]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /line 2: kind must be one of: pageview, event/);
    fs.writeFileSync(damaged, '{"page":"/"}\n');
    assert.match(
      cli(["import", "--file", damaged, "--data-dir", fresh]).stderr,
      /not an `analytics export` file/,
    );
    assert.equal(cli(["import", "--file", path.join(work, "missing.ndjson"), "--data-dir", fresh]).status, 2);
    const directory = cli(["import", "--file", work, "--data-dir", fresh]);
    assert.equal(directory.status, 2);
    assert.equal(directory.stderr, `--file ${work}: a directory, not a file.\n`);
  });

  it("refuses to export, rebuild or preview reports from a data directory without a store, creating nothing", () => {
    const typo = path.join(work, "no-such-dir");
    for (const command of [["export"], ["aggregates", "rebuild"], ["reports", "send", "--dry-run"]]) {
      const result = cli([...command, "--data-dir", typo]);
      assert.equal(result.status, 2, `${command.join(" ")}: ${result.stderr}`);
      assert.equal(result.stdout, "", "nothing exported, rebuilt or previewed");
      assert.equal(
        result.stderr,
        `${typo} holds no event store (no events.duckdb): check --data-dir or ANALYTICS_DATA_DIR.\n`,
      );
      assert.equal(fs.existsSync(typo), false, "the directory is not made");
    }
  });
});
