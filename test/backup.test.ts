// The backup docs/operations.md describes, done while the server runs: the metadata copied
// into a file and the events exported, then both restored into a new data directory, where
// a server answers every statistic as the first did and the same API key works.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createWebsite, runCli, startServer } from "./support/cli.js";
import { tempDir } from "./support/test-app.js";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
/** The SQLite engine for the metadata whatever the suite's engine: the backup is of a data directory. */
const SQLITE = { ANALYTICS_DATABASE_URL: "" };

describe("a backup of a running server", () => {
  it("restores into a new data directory with the same statistics and keys", async () => {
    const work = tempDir("analytics-backup-");
    const dataDir = path.join(work, "data");
    const backup = path.join(work, "backup");
    const restored = path.join(work, "restored");
    try {
      const key = runCli(
        ["users", "create", "--email", "owner@backup.example", "--data-dir", dataDir],
        SQLITE,
      )
        .stdout.trim()
        .split("\n")
        .at(-1) as string;
      const today = new Date().toISOString().slice(0, 10);
      const ask = async (base: string) => {
        const answers: unknown[] = [];
        for (const name of ["page", "visitors", "browser"]) {
          const response = await fetch(`${base}/api/v1/stats/1?name=${name}&from=${today}&to=${today}`, {
            headers: { authorization: `Bearer ${key}` },
          });
          assert.equal(response.status, 200, name);
          answers.push(((await response.json()) as { data: unknown }).data);
        }
        return answers;
      };

      const server = await startServer(["--data-dir", dataDir], {
        ...SQLITE,
        ANALYTICS_FLUSH_INTERVAL_MS: "50",
      });
      let before: unknown[];
      try {
        await createWebsite(server.baseUrl, key, "backup.example");
        for (const page of ["/", "/pricing", "/docs", "/pricing"]) {
          const hit = await fetch(`${server.baseUrl}/api/event`, {
            method: "POST",
            headers: { "content-type": "text/plain", "user-agent": CHROME },
            body: JSON.stringify({ page: `https://backup.example${page}` }),
          });
          assert.equal(hit.status, 202);
        }
        for (let i = 0; i < 100 && JSON.stringify(await ask(server.baseUrl)).indexOf("/docs") < 0; i++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        before = await ask(server.baseUrl);
        assert.match(JSON.stringify(before), /\/pricing/);

        // The backup, the server running.
        fs.mkdirSync(backup);
        const copied = runCli(
          ["metadata", "copy", "--data-dir", dataDir, "--to", path.join(backup, "metadata.sqlite")],
          SQLITE,
        );
        assert.equal(copied.status, 0, copied.stderr);
        const exported = runCli(["export", "--data-dir", dataDir], SQLITE);
        assert.equal(exported.status, 0, exported.stderr);
        fs.writeFileSync(path.join(backup, "events.ndjson"), exported.stdout);
      } finally {
        await server.stop();
      }

      // The restore, into a new data directory.
      const metadata = runCli(["metadata", "copy", "--data-dir", backup, "--to", restored], SQLITE);
      assert.equal(metadata.status, 0, metadata.stderr);
      const events = runCli(
        ["import", "--data-dir", restored, "--file", path.join(backup, "events.ndjson")],
        SQLITE,
      );
      assert.equal(events.status, 0, events.stderr);
      const again = await startServer(["--data-dir", restored], SQLITE);
      try {
        assert.deepEqual(await ask(again.baseUrl), before, "the same answers, with the same key");
      } finally {
        await again.stop();
      }
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
