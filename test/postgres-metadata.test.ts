// The PostgreSQL metadata store itself: several stores (servers) agree on a day's salt under
// a race, an unreachable server is a clear start-up error, and /healthz answers 503 while
// the server is away and 200 once it is back.

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../src/config.js";
import { createContainer } from "../src/container.js";
import { AppError } from "../src/errors.js";
import { openMetadataStore } from "../src/storage/open-storage.js";
import type { MetadataStore } from "../src/storage/ports.js";
import { openPostgresMetadataStore } from "../src/storage/postgres/open-postgres.js";
import { TcpProxy } from "./support/tcp-proxy.js";
import { createTestApp, tempDir } from "./support/test-app.js";
import {
  createTestSchema,
  skipWithoutPostgres,
  TEST_DATABASE_URL,
  type TestSchema,
} from "./support/test-metadata.js";

describe("an unreachable PostgreSQL server", () => {
  it("stops start-up with a message naming the server but not the password", async () => {
    const port = await closedPort();
    const dataDir = tempDir();
    try {
      const config = loadConfig({
        ANALYTICS_DATA_DIR: dataDir,
        ANALYTICS_DATABASE_URL: `postgres://someone:s3cret-pw@127.0.0.1:${port}/analytics`,
      });
      await assert.rejects(createContainer(config), (error: Error) => {
        assert.ok(error instanceof AppError, String(error));
        assert.equal(error.code, "unavailable");
        assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}/analytics: connection refused`));
        assert.doesNotMatch(error.message, /s3cret/);
        return true;
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("PostgreSQL metadata store", () => {
  let schema: TestSchema | null = null;
  const stores: MetadataStore[] = [];
  before(async () => {
    if (TEST_DATABASE_URL) schema = await createTestSchema(TEST_DATABASE_URL);
  });
  after(async () => {
    for (const store of stores) await store.close();
    await schema?.drop();
  });

  it("gives every server the salt stored first, however they race", async (t) => {
    if (skipWithoutPostgres(t) || !schema) return;
    const url = schema.url;
    const servers = Array.from({ length: 3 }, () => openPostgresMetadataStore(url));
    stores.push(...servers);
    await Promise.all(servers.map((store) => store.migrate())); // concurrent migrations are serialised
    const now = new Date("2026-03-01T00:00:00Z");
    const salts = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const stored = await (servers[i % servers.length] as MetadataStore).salts.getOrCreate(
          [{ day: "2026-03-01", candidate: `candidate-${i}`, keepUntil: new Date(now.getTime() + i * 1000) }],
          now,
        );
        return stored.get("2026-03-01");
      }),
    );
    assert.equal(new Set(salts).size, 1, `one salt for the day, got ${[...new Set(salts)].join(", ")}`);
    assert.match(salts[0] as string, /^candidate-\d+$/);
    const store = servers[0] as MetadataStore;
    assert.equal(
      await store.salts.deleteExpired(new Date(now.getTime() + 28_000)),
      0,
      "kept until the latest use",
    );
    assert.equal(await store.salts.deleteExpired(new Date(now.getTime() + 29_000)), 1);
  });

  it("migrates while other schemas of the database come and go", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const base = TEST_DATABASE_URL;
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const other = await createTestSchema(base);
        const store = openPostgresMetadataStore(other.url);
        await store.migrate();
        await store.close();
        await other.drop();
      }
    })();
    try {
      for (let i = 0; i < 8; i++) {
        const mine = await createTestSchema(base);
        const store = openPostgresMetadataStore(mine.url);
        try {
          await store.migrate();
          await store.migrate();
        } finally {
          await store.close();
          await mine.drop();
        }
      }
    } finally {
      churning = false;
      await churn;
    }
  });

  it("is chosen by ANALYTICS_DATABASE_URL and leaves no SQLite file", async (t) => {
    if (skipWithoutPostgres(t) || !schema) return;
    const dataDir = tempDir();
    try {
      const store = openMetadataStore(
        loadConfig({ ANALYTICS_DATA_DIR: dataDir, ANALYTICS_DATABASE_URL: schema.url }),
      );
      stores.push(store);
      await store.migrate();
      await store.ping();
      assert.equal(fs.existsSync(`${dataDir}/metadata.sqlite`), false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("answers /healthz with 503 while the server is unreachable, and 200 once it is back", async (t) => {
    if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
    const target = new URL(TEST_DATABASE_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    const port = await proxy.listen(0);
    const viaProxy = await createTestSchema(TEST_DATABASE_URL);
    const url = new URL(viaProxy.url);
    url.port = String(port);
    const app = await createTestApp({ ANALYTICS_DATABASE_URL: url.toString() });
    try {
      assert.equal((await app.app.inject({ url: "/healthz" })).statusCode, 200);
      await proxy.close(); // PostgreSQL goes away: open connections drop, new ones are refused
      const down = await app.app.inject({ url: "/healthz" });
      assert.equal(down.statusCode, 503);
      assert.deepEqual(down.json(), { status: "unavailable" });
      await proxy.listen(port);
      assert.equal((await app.app.inject({ url: "/healthz" })).statusCode, 200, "recovers without a restart");
    } finally {
      await app.close();
      await proxy.close();
      await viaProxy.drop();
    }
  });
});

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
