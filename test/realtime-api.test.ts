// GET /api/v1/stats/{id}/realtime: the visitors of the last 5 minutes and the pageviews of
// each of the last 30 minutes, zero-filled, including a hit still in the write buffer; and
// the same access rules as every statistic. What each engine counts is the contract suite's.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../src/clock.js";
import { createTestApp, type TestApp } from "./support/test-app.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

describe("realtime", () => {
  let t: TestApp;
  let key: string;
  let id: number;
  const clock = new ManualClock("2026-06-12T10:15:42Z");

  // Written at once only when asked: the hit below waits in the buffer.
  before(async () => {
    t = await createTestApp({ ANALYTICS_FLUSH_INTERVAL_MS: "3600000" }, clock);
    key = await t.createUser();
    const created = await t.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "now.example" },
    });
    id = created.json().data.id;
  });
  after(() => t.close());

  const hit = async (ip: string, path: string) => {
    const response = await t.app.inject({
      method: "POST",
      url: "/api/event",
      remoteAddress: ip,
      headers: { "user-agent": CHROME, "content-type": "text/plain" },
      payload: JSON.stringify({ page: `https://now.example${path}`, referrer: "" }),
    });
    assert.equal(response.statusCode, 202);
    assert.equal(response.headers["x-analytics-dropped"], undefined);
  };

  it("counts the last minutes' hits, the buffered ones too, in 30 zero-filled minutes", async () => {
    const empty = await t.call(key, { url: `/api/v1/stats/${id}/realtime` });
    assert.equal(empty.statusCode, 200, empty.body);
    assert.equal(empty.json().data.visitors, 0);
    assert.equal(empty.json().data.pageviews.length, 30);

    clock.set("2026-06-12T10:03:10Z"); // 12 minutes before: a pageview, not a visitor now
    await hit("81.2.69.142", "/old");
    await t.container.buffer.flush();
    clock.set("2026-06-12T10:15:20Z");
    await hit("81.2.69.142", "/");
    await hit("81.2.69.142", "/pricing");
    await hit("2.125.160.216", "/");
    clock.set("2026-06-12T10:15:42Z");
    assert.equal(t.container.buffer.size, 3, "three hits not written yet");

    const response = await t.call(key, { url: `/api/v1/stats/${id}/realtime` });
    assert.equal(response.statusCode, 200, response.body);
    const { data, status } = response.json();
    assert.equal(status, 200);
    assert.equal(data.visitors, 2);
    assert.equal(data.pageviews.length, 30);
    assert.deepEqual(data.pageviews[0], { minute: "2026-06-12T09:46:00.000Z", count: 0 });
    assert.deepEqual(data.pageviews[29], { minute: "2026-06-12T10:15:00.000Z", count: 3 });
    assert.deepEqual(data.pageviews[17], { minute: "2026-06-12T10:03:00.000Z", count: 1 });
    const total = data.pageviews.reduce((sum: number, entry: { count: number }) => sum + entry.count, 0);
    assert.equal(total, 4);
  });

  it("answers 404 for another user's website and 401 without a key", async () => {
    const other = await t.createUser();
    assert.equal((await t.call(other, { url: `/api/v1/stats/${id}/realtime` })).statusCode, 404);
    assert.equal((await t.call(key, { url: "/api/v1/stats/999999/realtime" })).statusCode, 404);
    assert.equal((await t.call(null, { url: `/api/v1/stats/${id}/realtime` })).statusCode, 401);
  });
});
