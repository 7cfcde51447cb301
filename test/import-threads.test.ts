// Import threads (import-threads.ts, import-worker.ts): a body read on one thread, its
// events prepared there with the websites and salts the caller looked up, and a thread
// that dies failing only its own requests.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Worker } from "node:worker_threads";
import { BUILT_INDEX_DIR, bundledGeoSources, ensureGeoIndex } from "../src/enrich/geo.js";
import { ImportBodyError, ImportThreads } from "../src/ingest/import-threads.js";
import { fromColumns } from "../src/storage/event-columns.js";
import type { WebsiteRecord } from "../src/storage/ports.js";

const NOW = new Date("2026-05-10T08:00:00Z");
const website: WebsiteRecord = {
  id: 5,
  userId: 1,
  domain: "threads.example",
  privacy: 0,
  passwordHash: null,
  passwordEpoch: 0,
  email: 0,
  excludeBots: 1,
  excludeDatacenters: 1,
  excludeParams: null,
  excludeIps: null,
  timezone: "UTC",
  createdAt: NOW,
  updatedAt: NOW,
};
const SALTS: [string, string][] = [
  ["2026-05-09", "c2FsdC1vZi10aGUtOXRo"],
  ["2026-05-10", "c2FsdC1vZi10aGUtMTB0aA=="],
];
const body = (events: unknown[]) => Buffer.from(JSON.stringify({ events }));
const pageview = {
  website_id: 5,
  ts: "2026-05-10T07:00:00Z",
  page: "https://threads.example/a?x=1",
  ip: "8.8.8.8",
  user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
};

describe("import threads", () => {
  const threads = new ImportThreads(1, () => ensureGeoIndex(bundledGeoSources(), BUILT_INDEX_DIR));
  after(() => threads.close());

  it("reads a body, names its websites, and prepares its events", async () => {
    const job = await threads.read(body([pageview, { ...pageview, user_agent: "curl/8.5.0" }]));
    assert.deepEqual(job.websiteIds, [5]);
    const prepared = await job.prepare([website], SALTS, NOW);
    job.forget();
    assert.equal(prepared.dropped.bot, 1);
    const [event] = fromColumns(prepared.columns);
    assert.equal(prepared.columns.count, 1);
    assert.equal(event?.page, "/a?x=1");
    assert.equal(event?.browser, "Firefox");
    assert.equal(event?.country, "US:United States");
    assert.equal(event?.continent, "NA:North America");
    assert.equal(typeof event?.visitor, "bigint");
  });

  it("reports a body it cannot read, and invalid events", async () => {
    await assert.rejects(
      threads.read(Buffer.from("{")),
      (error) => error instanceof ImportBodyError && error.problem.kind === "not_json",
    );
    const job = await threads.read(body([{ ...pageview, website_id: 6 }]));
    await assert.rejects(job.prepare([website], SALTS, NOW), (error: Error & { fields?: object }) => {
      assert.deepEqual(error.fields, {
        "events.0.website_id": ["The website id does not name one of your websites."],
      });
      return true;
    });
    job.forget();
  });

  it("fails the requests of a thread that stops, and starts another for the next", async () => {
    const job = await threads.read(body([pageview]));
    // The pool's only thread, reached into to stop it as a crash would.
    const [thread] = (threads as unknown as { threads: { worker: Worker }[] }).threads;
    await thread?.worker.terminate();
    await assert.rejects(job.prepare([website], SALTS, NOW), /import thread/);
    job.forget();
    const next = await threads.read(body([pageview]));
    assert.equal((await next.prepare([website], SALTS, NOW)).columns.count, 1);
    next.forget();
  });
});
