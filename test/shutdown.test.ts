// No acknowledged hit is lost on a clean shutdown: a real server process takes hits that
// are still buffered in memory when it gets SIGTERM (or SIGINT), and every one of them is
// in the event store afterwards.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { DuckDbEventStore } from "../src/storage/duckdb/duckdb-event-store.js";
import { createWebsite, runCli, startServer } from "./support/cli.js";
import { tempDir } from "./support/test-app.js";

const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  describe(`shutdown on ${signal}`, () => {
    it("flushes every acknowledged hit before exiting", async () => {
      const dataDir = tempDir("analytics-shutdown-");
      try {
        const key = runCli([
          "users",
          "create",
          "--email",
          "owner@example.org",
          "--data-dir",
          dataDir,
        ]).lastLine;
        // A long flush interval: the hits stay buffered until the signal.
        // 400 clients at once from this one address: more than the per-address connection limit.
        const server = await startServer(["--data-dir", dataDir], {
          ANALYTICS_FLUSH_INTERVAL_MS: "600000",
          ANALYTICS_MAX_CONNECTIONS_PER_CLIENT: "0",
        });
        let acknowledged = 0;
        try {
          await createWebsite(server.baseUrl, key, "durable.example");
          const sends = Array.from({ length: 400 }, async (_, i) => {
            const response = await fetch(`${server.baseUrl}/api/event`, {
              method: "POST",
              headers: { "content-type": "text/plain", "user-agent": SAFARI },
              body: JSON.stringify({ page: `https://durable.example/page/${i}` }),
            });
            if (response.status === 202 && !response.headers.get("x-analytics-dropped")) acknowledged += 1;
          });
          await Promise.all(sends);
        } finally {
          assert.equal(await server.stop(signal), 0, "clean exit");
        }
        assert.equal(acknowledged, 400);
        const buffered = Number(/"buffered":(\d+)/.exec(server.output())?.[1]);
        assert.ok(
          buffered > 0,
          `hits were still buffered at ${signal} (${buffered}), so the shutdown flush ran`,
        );
        const store = await DuckDbEventStore.open(dataDir);
        try {
          assert.equal(await store.countEvents(), acknowledged, "every acknowledged hit was stored");
        } finally {
          await store.close();
        }
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
