// Two server processes on the same stores: what one writes, the other reads. Both keep
// their metadata in PostgreSQL. Twice: each with an embedded event store of its own (they
// must still agree on websites, keys and visitors: one salt a day, shared through
// PostgreSQL), and both on one ClickHouse cluster (a hit through each is one visitor,
// read through either).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type RunningServer, runCli, startServer } from "./support/cli.js";
import { clickhouseMissing, provisionClickHouse } from "./support/event-stores.js";
import { tempDir } from "./support/test-app.js";
import { createTestSchema, skipWithoutPostgres, TEST_DATABASE_URL } from "./support/test-metadata.js";

const UA = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";

describe("two servers on the same stores", () => {
  for (const shared of [false, true]) {
    const name = shared ? "one ClickHouse event store" : "an embedded event store each";
    it(`see each other's writes and agree on visitors (${name})`, async (t) => {
      if (skipWithoutPostgres(t) || !TEST_DATABASE_URL) return;
      if (shared && clickhouseMissing()) return t.skip(`${clickhouseMissing()}: ClickHouse case skipped`);
      const schema = await createTestSchema(TEST_DATABASE_URL);
      const clickhouse = shared ? await provisionClickHouse() : null;
      const sharedEvents = clickhouse?.env ?? null;
      const env = { ANALYTICS_DATABASE_URL: schema.url, ANALYTICS_FLUSH_INTERVAL_MS: "50", ...sharedEvents };
      const work = tempDir("analytics-scale-out-");
      const dirs = [path.join(work, "a"), path.join(work, "b")];
      const servers: RunningServer[] = [];
      try {
        const key = runCli(
          ["users", "create", "--email", "owner@example.org", "--data-dir", dirs[0] as string],
          env,
        ).lastLine;
        for (const dir of dirs) servers.push(await startServer(["--data-dir", dir], env));
        const [a, b] = servers as [RunningServer, RunningServer];
        const api = (server: RunningServer, url: string, init: RequestInit = {}) =>
          fetch(`${server.baseUrl}/api/v1${url}`, {
            ...init,
            headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
          });

        // A website created through one server is there, the same, through the other.
        const created = await api(a, "/websites", { method: "POST", body: "domain=shared.example" });
        assert.equal(created.status, 201);
        const website = ((await created.json()) as { data: { id: number } }).data;
        const seen = await api(b, `/websites/${website.id}`);
        assert.equal(seen.status, 200);
        assert.deepEqual(((await seen.json()) as { data: unknown }).data, website);
        const updated = await api(b, `/websites/${website.id}`, { method: "PUT", body: "privacy=0" });
        assert.equal(updated.status, 200);
        const reread = (await (await api(a, `/websites/${website.id}`)).json()) as {
          data: { privacy: number };
        };
        assert.equal(reread.data.privacy, 0);

        // The same visitor (address and browser) through each server.
        for (const server of servers) {
          const hit = await fetch(`${server.baseUrl}/api/event`, {
            method: "POST",
            headers: { "content-type": "text/plain", "user-agent": UA },
            body: JSON.stringify({ page: "https://shared.example/", referrer: "" }),
          });
          assert.equal(hit.status, 202);
          assert.equal(hit.headers.get("x-analytics-dropped"), null);
        }

        if (sharedEvents) {
          // One event store: both hits are one visitor, read through either server.
          const today = new Date().toISOString().slice(0, 10);
          const stat = async (server: RunningServer, name: string) => {
            const response = await api(server, `/stats/${website.id}?name=${name}&from=${today}&to=${today}`);
            assert.equal(response.status, 200);
            return ((await response.json()) as { data: { value: string; count: number }[] }).data;
          };
          // The servers flush their buffers every 50 ms; wait for both hits to be stored.
          for (let tries = 0; (await stat(b, "pageviews"))[0]?.count !== 2; tries++) {
            assert.ok(tries < 200, "both hits are stored");
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          for (const server of servers) {
            assert.deepEqual(await stat(server, "visitors"), [{ value: today, count: 1 }]);
          }
        }

        for (const server of servers)
          assert.equal(await server.stop("SIGTERM"), 0, server.output().slice(-3000));
        servers.length = 0;
        if (!sharedEvents) {
          // Each server hashed the visitor with the day's salt from PostgreSQL: the hashes agree.
          const visitors = dirs.map((dir) => {
            const exported = runCli(["export", "--data-dir", dir], env);
            assert.equal(exported.status, 0, exported.stderr);
            const events = exported.stdout.trimEnd().split("\n").slice(1);
            assert.equal(events.length, 1, `one event in ${dir}`);
            return JSON.parse(events[0] as string).visitor as string;
          });
          assert.equal(visitors[0], visitors[1], "both servers give the visitor the same hash");
        }
      } finally {
        for (const server of servers) await server.stop("SIGTERM");
        await schema.drop();
        await clickhouse?.dispose();
        fs.rmSync(work, { recursive: true, force: true });
      }
    });
  }
});
