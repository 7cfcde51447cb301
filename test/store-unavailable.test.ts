// What clients and the log are told while a store cannot answer: a 503 whose body says only
// which store is unavailable (the README's fixed sentence), never the store's own error,
// which names servers, ports and files; that error goes to the log once when the store
// starts failing, then at most once a minute. A 503 of another kind (too many passwords
// being checked) keeps its own sentence.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify from "fastify";
import { errorHandler } from "../src/api/http-errors.js";
import { StoreUnavailableError } from "../src/errors.js";
import type { NoticeLevel } from "../src/ingest/outage-log.js";
import { ClickHouseError } from "../src/storage/clickhouse/clickhouse-nodes.js";
import { StoreFailureLog } from "../src/store-failure-log.js";
import { PasswordsBusyError } from "../src/websites/password-hasher.js";
import { CLICKHOUSE_ENGINES, provisionClickHouse } from "./support/event-stores.js";
import { TcpProxy, viaProxy } from "./support/tcp-proxy.js";
import { createTestApp } from "./support/test-app.js";

const METADATA_STORE_UNAVAILABLE = {
  message: "The metadata store is unavailable for now; try again later.",
  status: 503,
};
const EVENT_STORE_UNAVAILABLE = {
  message: "The event store is unavailable for now; try again later.",
  status: 503,
};

interface Logged {
  level: NoticeLevel;
  details: Record<string, unknown>;
  message: string;
}

describe("a 503 of a store that cannot answer", () => {
  it("tells the client which store alone, and logs the cause once, then at most once a minute", async () => {
    const logged: Logged[] = [];
    const start = 1_000_000;
    let now = start;
    const failures = new StoreFailureLog(
      (level, details, message) => logged.push({ level, details, message }),
      () => now,
    );
    const app = Fastify();
    app.setErrorHandler(errorHandler(failures));
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:8124");
    app.get("/clickhouse", async () => {
      throw new ClickHouseError("http://127.0.0.1:8124", refused);
    });
    app.get("/metadata", async () => {
      throw new StoreUnavailableError(
        "metadata",
        "Cannot use the PostgreSQL metadata store at 127.0.0.1:5432/analytics: connection refused.",
      );
    });
    app.get("/passwords", async () => {
      throw new PasswordsBusyError();
    });
    try {
      for (let i = 0; i < 5; i++) {
        now = start + i * 1_000;
        const response = await app.inject({ url: "/clickhouse" });
        assert.equal(response.statusCode, 503);
        assert.deepEqual(response.json(), EVENT_STORE_UNAVAILABLE);
      }
      assert.deepEqual(
        logged.map(({ level, details }) => [level, details.store, (details.err as Error).message]),
        [["error", "event", "ClickHouse at http://127.0.0.1:8124: connect ECONNREFUSED 127.0.0.1:8124"]],
        "the first failure alone",
      );
      assert.equal(
        ((logged[0] as Logged).details.err as Error).cause,
        refused,
        "ClickHouse's own error kept as the cause",
      );

      const metadata = await app.inject({ url: "/metadata" });
      assert.equal(metadata.statusCode, 503);
      assert.deepEqual(metadata.json(), METADATA_STORE_UNAVAILABLE);
      assert.equal(logged.length, 2, "each store's outage has its own line");
      assert.equal(logged[1]?.details.store, "metadata");

      // Still failing, a request a second: the next line a minute after the first, counting
      // the requests refused since.
      for (let i = 5; i <= 60; i++) {
        now = start + i * 1_000;
        await app.inject({ url: "/clickhouse" });
      }
      assert.deepEqual(
        logged.slice(2).map(({ level, details }) => [level, details.store, details.refused]),
        [["warn", "event", 60]],
      );
      // A minute without failures ends the outage: the next failure is a new one.
      now += 61_000;
      await app.inject({ url: "/clickhouse" });
      assert.deepEqual(
        logged.slice(3).map(({ level, details }) => [level, details.store]),
        [["error", "event"]],
      );

      const busy = await app.inject({ url: "/passwords" });
      assert.equal(busy.statusCode, 503);
      assert.deepEqual(busy.json(), {
        message: "Too many passwords are being checked right now. Try again in a moment.",
        status: 503,
      });
      assert.equal(busy.headers["retry-after"], "1");
      assert.equal(logged.length, 4, "no store failed");
    } finally {
      await app.close();
    }
  });
});

for (const engine of CLICKHOUSE_ENGINES) {
  describe(`the event store unreachable (${engine.name})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it("answers 503 with the fixed sentence, and logs ClickHouse's error once", async (t) => {
      if (engine.skip) return t.skip(engine.skip);
      const provisioned = await provisionClickHouse(engine);
      cleanups.push(() => provisioned.dispose());
      // Every node behind a proxy of its own, so the test can stop them all.
      const proxies = provisioned.urls.map((url) => {
        const { hostname, port } = new URL(url);
        return { url, proxy: new TcpProxy(hostname, Number(port)), port: 0 };
      });
      for (const node of proxies) node.port = await node.proxy.listen(0);
      cleanups.push(async () => {
        for (const { proxy } of proxies) await proxy.close();
      });
      const logged: Logged[] = [];
      const app = await createTestApp(
        {
          ANALYTICS_CLICKHOUSE_URL: proxies.map(({ url, port }) => viaProxy(url, port)).join(","),
          ANALYTICS_CLICKHOUSE_CLUSTER: provisioned.cluster ?? "",
        },
        undefined,
        { onNotice: (level, details, message) => logged.push({ level, details, message }) },
      );
      cleanups.push(() => app.close());
      const key = await app.createUser();
      const created = await app.call(key, {
        method: "POST",
        url: "/api/v1/websites",
        form: { domain: "down.example", privacy: "0" },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().data.id as number;
      const stats = `/api/v1/stats/${id}?name=pageviews&from=2026-01-01&to=2026-01-31`;
      assert.equal((await app.call(key, { url: stats })).statusCode, 200);

      for (const { proxy } of proxies) await proxy.close(); // every node goes away
      for (const url of [stats, `/api/v1/stats/${id}/realtime`, stats]) {
        const response = await app.call(key, { url });
        assert.equal(response.statusCode, 503, `${url}: ${response.body}`);
        assert.deepEqual(response.json(), EVENT_STORE_UNAVAILABLE, url);
      }
      const page = await app.app.inject({ url: "/down.example" });
      assert.equal(page.statusCode, 503);
      assert.match(page.body, /unavailable for a moment/);
      assert.doesNotMatch(page.body, /ClickHouse|ECONNREFUSED|127\.0\.0\.1/);

      const told = logged.filter(({ message }) => /event store/.test(message));
      assert.equal(
        told.length,
        1,
        `one line for the outage: ${JSON.stringify(logged.map((l) => l.message))}`,
      );
      const [line] = told as [Logged];
      assert.equal(line.level, "error");
      assert.match(String((line.details.err as Error).message), /^ClickHouse at http:\/\/127\.0\.0\.1:\d+/);

      for (const node of proxies) await node.proxy.listen(node.port);
      for (let i = 0; ; i++) {
        const back = await app.call(key, { url: stats });
        if (back.statusCode === 200) break;
        if (i === 20) assert.fail(`still ${back.statusCode} once ClickHouse is back: ${back.body}`);
        await sleep(100);
      }
    });
  });
}
