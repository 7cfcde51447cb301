// What clients and the log are told while a store cannot answer: a 503 whose body says only
// which store is unavailable (the README's fixed sentence), never the store's own error,
// which names servers, ports and files; that error goes to the log once when the store
// starts failing, then at most once a minute. A 503 of another kind (too many passwords
// being checked) keeps its own sentence.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify from "fastify";
import { sql } from "kysely";
import pg from "pg";
import { errorHandler } from "../src/api/http-errors.js";
import { ManualClock } from "../src/clock.js";
import { StoreUnavailableError } from "../src/errors.js";
import type { NoticeLevel } from "../src/ingest/outage-log.js";
import { ClickHouseError } from "../src/storage/clickhouse/clickhouse-nodes.js";
import { openPostgresMetadataStore } from "../src/storage/postgres/open-postgres.js";
import { postgresUnavailable } from "../src/storage/postgres/postgres-failures.js";
import { StoreFailureLog } from "../src/store-failure-log.js";
import { PasswordsBusyError } from "../src/websites/password-hasher.js";
import { CLICKHOUSE_ENGINES, provisionClickHouse } from "./support/event-stores.js";
import { TcpProxy, viaProxy } from "./support/tcp-proxy.js";
import { createTestApp } from "./support/test-app.js";
import { createTestSchema, skipWithoutPostgres, TEST_DATABASE_URL } from "./support/test-metadata.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
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

/**
 * A server whose metadata store is the test PostgreSQL behind a proxy the test closes (the
 * outage) and opens again, with a user and their website example.com; `logged` holds its
 * log lines. `close` ends the server, the proxy and the schema.
 */
async function behindClosableProxy(
  databaseUrl: string,
  website: Record<string, string>,
  clock?: ManualClock,
) {
  const target = new URL(databaseUrl);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  const port = await proxy.listen(0);
  const schema = await createTestSchema(databaseUrl);
  const logged: Logged[] = [];
  const app = await createTestApp({ ANALYTICS_DATABASE_URL: viaProxy(schema.url, port) }, clock, {
    onNotice: (level, details, message) => logged.push({ level, details, message }),
  });
  const close = async () => {
    await app.close();
    await proxy.close();
    await schema.drop();
  };
  try {
    const key = await app.createUser();
    const created = await app.call(key, {
      method: "POST",
      url: "/api/v1/websites",
      form: { domain: "example.com", ...website },
    });
    assert.equal(created.statusCode, 201, created.body);
    return { proxy, port, app, logged, key, id: created.json().data.id as number, close };
  } catch (error) {
    await close();
    throw error;
  }
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

    it("answers 503 with the fixed sentence, and logs ClickHouse's error once", {
      timeout: 120_000,
    }, async (t) => {
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
      // The folds of closed days, every 10 seconds, fail too: told with the outage, not each time.
      await sleep(11_000);

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

      // A node that stops answering (its connections carry nothing more, as behind a cut
      // route): /healthz says so within its 5 seconds instead of waiting for it.
      const [stalled] = proxies as [(typeof proxies)[number]];
      assert.equal((await app.app.inject({ url: "/healthz" })).statusCode, 200);
      stalled.proxy.stall();
      assert.deepEqual((await app.app.inject({ url: "/healthz" })).json(), { status: "unavailable" });
      await assert.rejects(
        app.container.events.ping(),
        /: ClickHouse at http:\/\/127\.0\.0\.1:\d+: no answer within 5000 ms$/,
      );
      stalled.proxy.restore();
      for (let i = 0; ; i++) {
        const back = await app.app.inject({ url: "/healthz" });
        if (back.statusCode === 200) break;
        if (i === 20) assert.fail(`/healthz still ${back.statusCode} once the node answers again`);
        await sleep(100);
      }
    });
  });
}

describe("the metadata store unreachable (PostgreSQL)", () => {
  it("answers 503 with the fixed sentence on the API and the pages, and logs the cause once", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const { proxy, port, app, logged, key, id, close } = await behindClosableProxy(TEST_DATABASE_URL, {
      privacy: "0",
    });
    try {
      assert.equal((await app.app.inject({ url: "/example.com" })).statusCode, 200);

      await proxy.close(); // PostgreSQL goes away: open connections drop, new ones are refused
      // A monitor probing every few seconds is told 503 each time, and the log the cause once.
      for (let probe = 0; probe < 3; probe++)
        assert.deepEqual((await app.app.inject({ url: "/healthz" })).json(), { status: "unavailable" });
      assert.deepEqual(
        logged.map(({ message }) => message.replace(/ \(.*/, "")),
        ["the metadata store cannot answer: requests that need it are refused"],
      );
      const calls = [
        { url: "/api/v1/websites" },
        { url: `/api/v1/stats/${id}/realtime` },
        {
          method: "POST" as const,
          url: "/api/v1/events",
          json: { events: [{ website_id: id, ts: "2026-05-09T12:00:00Z", page: "https://example.com/" }] },
        },
      ];
      for (const call of calls) {
        const response = await app.call(key, call);
        assert.equal(response.statusCode, 503, `${call.url}: ${response.body}`);
        assert.deepEqual(response.json(), METADATA_STORE_UNAVAILABLE, call.url);
      }
      for (const url of ["/example.com", "/"]) {
        const page = await app.app.inject({ url });
        assert.equal(page.statusCode, 503, `${url}: ${page.body}`);
        assert.match(page.body, /[Uu]navailable for a moment/, url);
        assert.doesNotMatch(page.body, /PostgreSQL|ECONNREFUSED|127\.0\.0\.1/, url);
      }
      assert.equal((await app.app.inject({ url: "/healthz" })).statusCode, 503);

      const told = logged.filter(({ message }) => /metadata store/.test(message));
      assert.equal(
        told.length,
        1,
        `one line for the outage: ${JSON.stringify(logged.map((l) => l.message))}`,
      );
      assert.match(
        String(((told[0] as Logged).details.err as Error).message),
        new RegExp(`^Cannot use the PostgreSQL metadata store at 127\\.0\\.0\\.1:${port}/`),
      );

      await proxy.listen(port);
      const back = await app.call(key, { url: "/api/v1/websites" });
      assert.equal(back.statusCode, 200, `recovers without a restart: ${back.body}`);
    } finally {
      await close();
    }
  });
});

describe("the metadata store that stops answering (PostgreSQL)", () => {
  // A store that hangs the server fails here rather than hanging the suite.
  it("answers 503 once a statement waits 5 seconds, on open connections too, and recovers", {
    timeout: 60_000,
  }, async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const { proxy, app, logged, key, close } = await behindClosableProxy(TEST_DATABASE_URL, {});
    try {
      assert.equal((await app.call(key, { url: "/api/v1/websites" })).statusCode, 200);
      proxy.stall(); // the pool's open connections carry nothing more, new ones get no answer
      assert.ok(proxy.held > 0, "an open connection is stalled");
      assert.deepEqual((await app.app.inject({ url: "/healthz" })).json(), { status: "unavailable" });
      const stalled = await app.call(key, { url: "/api/v1/websites" });
      assert.equal(stalled.statusCode, 503, stalled.body);
      assert.deepEqual(stalled.json(), METADATA_STORE_UNAVAILABLE);
      const told = logged.filter(({ message }) => /metadata store/.test(message));
      assert.equal(told.length, 1, JSON.stringify(logged.map((l) => l.message)));
      assert.match(
        String(((told[0] as Logged).details.err as Error).message),
        /: no answer in time\.$|: connection timed out\.$/,
      );

      proxy.restore();
      const back = await app.call(key, { url: "/api/v1/websites" });
      assert.equal(back.statusCode, 200, `recovers without a restart: ${back.body}`);
      assert.equal((await app.app.inject({ url: "/healthz" })).statusCode, 200);
    } finally {
      await close();
    }
  });
});

describe("hits while the metadata store is unreachable (PostgreSQL)", () => {
  it("are recorded for every host looked up before, dropped as unavailable for a new one, and never wait for it", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const clock = new ManualClock("2026-03-02T12:00:00Z");
    const { proxy, port, app, logged, key, id, close } = await behindClosableProxy(
      TEST_DATABASE_URL,
      {},
      clock,
    );
    try {
      const base = await app.app.listen({ host: "127.0.0.1", port: 0 });
      // As the tracker sends them, so they take the fast path.
      const hit = async (page: string) => {
        const response = await fetch(`${base}/api/event`, {
          method: "POST",
          headers: { "content-type": "text/plain", "user-agent": CHROME },
          body: JSON.stringify({ page }),
        });
        assert.equal(response.status, 202, page);
        assert.equal(await response.text(), "", "an empty body, whatever happened to the hit");
        return response.headers.get("x-analytics-dropped");
      };
      assert.equal(await hit("https://example.com/"), null);
      assert.equal(await hit("https://unknown.example/"), "unknown_website");
      await app.container.buffer.flush(); // today's salt is loaded

      await proxy.close(); // PostgreSQL goes away
      assert.equal(await hit("https://example.com/cached"), null, "its website looked up just now: kept");
      clock.advance(11_000); // past the 10 seconds: the website is looked up again
      assert.equal(await hit("https://example.com/looked-up"), null, "kept on the last answer");
      assert.equal(
        await hit("https://unknown.example/"),
        "unknown_website",
        "so is a host no website tracks",
      );
      assert.equal(await hit("https://never-seen.example/"), "unavailable", "a new host cannot be looked up");
      const injected = await app.app.inject({
        method: "POST",
        url: "/api/event",
        headers: { "content-type": "text/plain", "user-agent": CHROME },
        payload: JSON.stringify({ page: "https://example.com/injected" }),
      });
      assert.equal(injected.statusCode, 202);
      assert.equal(injected.headers["x-analytics-dropped"], undefined, "the documented route alike");
      await app.container.buffer.flush(); // the hits kept meanwhile are written (the salt is in memory)
      const told = logged.filter(({ message }) => /metadata store/.test(message));
      assert.equal(
        told.length,
        1,
        `one line for the outage: ${JSON.stringify(logged.map((l) => l.message))}`,
      );

      // A server that takes connections and answers nothing: a lookup waits 5 seconds.
      await proxy.listen(port);
      proxy.blackHole();
      clock.advance(11_000);
      assert.equal(await hit("https://example.com/black-holed"), null, "kept on the last answer");
      assert.ok(proxy.held > 0, "answered while the lookup still waits on the store");

      proxy.restore();
      clock.advance(11_000);
      assert.equal(await hit("https://example.com/back"), null, "taken again once the store answers");
      await app.container.drops.flush();
      const dropped = await app.call(key, {
        url: `/api/v1/stats/${id}/dropped?from=2026-03-02&to=2026-03-02`,
      });
      assert.equal(dropped.statusCode, 200, dropped.body);
      assert.equal(dropped.json().data.totals.total, 0, "no hit of the website was dropped");
      await app.container.buffer.flush();
      assert.equal(await app.container.events.countEvents(id), 6, "every hit of the website stored");
    } finally {
      await close();
    }
  });
});

describe("PostgreSQL errors", () => {
  const url = "postgres://analytics:s3cret@db.internal:5433/analytics";
  const errorWith = (code: string | undefined, message = "failed") =>
    Object.assign(new Error(message), { code });

  it("tell a server that cannot be used for now from other errors", () => {
    const unavailable: [Error, string][] = [
      [errorWith("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.5:5433"), "connection refused"],
      [errorWith("ECONNRESET", "read ECONNRESET"), "connection reset"],
      [
        errorWith("57P01", "terminating connection due to administrator command"),
        "the server is shutting down",
      ],
      [errorWith("57P03", "the database system is starting up"), "the server cannot accept connections now"],
      [errorWith("08006", "connection failure"), "connection failure"],
      [errorWith("08001"), "connection failure"],
      [errorWith("53300", "sorry, too many clients already"), "insufficient resources"],
      [errorWith("53100", "could not extend file: No space left on device"), "insufficient resources"],
      [errorWith(undefined, "Connection terminated unexpectedly"), "connection lost"],
      [
        errorWith(undefined, "Client has encountered a connection error and is not queryable"),
        "connection lost",
      ],
      [errorWith(undefined, "timeout exceeded when trying to connect"), "connection timed out"],
      [errorWith(undefined, "Query read timeout"), "no answer in time"],
    ];
    for (const [error, why] of unavailable) {
      assert.equal(
        postgresUnavailable(error, url),
        `Cannot use the PostgreSQL metadata store at db.internal:5433/analytics: ${why}.`,
        error.message,
      );
    }
    for (const error of [
      errorWith("23505", "duplicate key value violates unique constraint"),
      errorWith("42P01", 'relation "websites" does not exist'),
      errorWith("22P02", "invalid input syntax for type integer"),
      errorWith("40001", "could not serialize access"),
      errorWith(undefined, "Cannot read properties of undefined"),
    ]) {
      assert.equal(postgresUnavailable(error, url), null, error.message);
    }
  });

  it("of a real server: a statement whose connection the server ends is unavailable, and the next one reconnects", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const schema = await createTestSchema(TEST_DATABASE_URL);
    const store = openPostgresMetadataStore(schema.url);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await store.migrate();
      const marker = schema.url.match(/search_path%3D(t_[0-9a-f]+)/)?.[1] ?? "marker";
      const sleeping = sql`SELECT pg_sleep(30) AS ${sql.ref(marker)}`.execute(store.db).then(
        () => assert.fail("the statement was not ended"),
        (error: unknown) => error,
      );
      // What a fast shutdown does to every connection: 57P01, "terminating connection due to
      // administrator command".
      for (let ended = 0; ended === 0; ) {
        await sleep(50);
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()",
          [`%pg_sleep(30) AS "${marker}"%`],
        );
        ended = rowCount ?? 0;
      }
      const error = await sleeping;
      assert.ok(error instanceof StoreUnavailableError, String(error));
      assert.equal(error.store, "metadata");
      assert.match(error.message, /: the server is shutting down\.$/);
      assert.doesNotMatch(error.message, /analytics:analytics@/);
      assert.equal(await store.websites.findByDomain("example.com"), null, "a new connection answers");
    } finally {
      await admin.end();
      await store.close();
      await schema.drop();
    }
  });
});
