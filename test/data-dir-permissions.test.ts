// The data directory holds the cookie-signing secret, key and password hashes and the
// visitor salts, so it is its user's alone: `serve` creates it 0700 with files 0600, and
// tightens a directory an earlier version left readable, saying in one line what changed.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { runCli, startServer } from "./support/cli.js";
import { tempDir } from "./support/test-app.js";

/** Embedded stores whatever the suite's metadata engine is: these are files' modes. */
const EMBEDDED = { ANALYTICS_DATABASE_URL: "" };

function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

/** `name mode` of every entry of the directory readable or writable by group or others. */
function loose(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .map((name) => `${name} ${modeOf(path.join(dir, name)).toString(8)}`)
    .filter((entry) => (Number.parseInt(entry.split(" ")[1] ?? "0", 8) & 0o077) !== 0);
}

/**
 * Resolves once `serve` is fully up: its control socket is the last thing it opens before it
 * takes SIGTERM as a request to shut down cleanly.
 */
async function upAndRunning(dataDir: string): Promise<void> {
  for (let i = 0; i < 200 && !fs.existsSync(path.join(dataDir, "events.sock")); i++) await sleep(50);
  await sleep(200);
}

describe("data directory permissions", () => {
  const root = tempDir("analytics-modes-");
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("creates a fresh data directory and every file in it for its user alone", async () => {
    const dataDir = path.join(root, "fresh", "data");
    const server = await startServer(["--data-dir", dataDir], EMBEDDED);
    try {
      // A command beside the running server writes the metadata (and its journal) too.
      assert.equal(
        runCli(["users", "create", "--email", "modes@example.org", "--data-dir", dataDir], EMBEDDED).status,
        0,
      );
      const hit = await fetch(`${server.baseUrl}/api/event`, {
        method: "POST",
        body: JSON.stringify({ page: "https://nowhere.example/" }),
      });
      assert.equal(hit.status, 202);
      await upAndRunning(dataDir); // server-url and the socket are written once it listens
      assert.equal(modeOf(dataDir), 0o700);
      const names = fs.readdirSync(dataDir);
      for (const expected of [
        "metadata.sqlite",
        "metadata.sqlite-wal",
        "events.duckdb",
        "events.sock",
        "server-url",
      ]) {
        assert.ok(names.includes(expected), `${expected} in ${names.join(", ")}`);
      }
      assert.deepEqual(loose(dataDir), []);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    assert.deepEqual(loose(dataDir), [], "nothing loose after a clean stop either");
  });

  it("tightens a loose data directory on start, in one line saying what it changed", async () => {
    const dataDir = path.join(root, "loose");
    assert.equal(runCli(["migrate", "--data-dir", dataDir], EMBEDDED).status, 0);
    // As earlier versions (and a umask of 022) left them.
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, "metadata.sqlite"), 0o644);
    fs.chmodSync(path.join(dataDir, "events.duckdb"), 0o664);
    fs.writeFileSync(path.join(dataDir, "server-url"), "http://127.0.0.1:1\n", { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, "server-url"), 0o644);

    const server = await startServer(["--data-dir", dataDir], EMBEDDED);
    let output: string;
    try {
      await upAndRunning(dataDir);
      assert.equal(modeOf(dataDir), 0o700);
      assert.deepEqual(loose(dataDir), []);
      output = server.output();
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const lines = output.split("\n").filter((line) => line.includes("data directory made private"));
    assert.equal(lines.length, 1, output);
    for (const change of [
      `${dataDir} 0755 -> 0700`,
      "metadata.sqlite 0644 -> 0600",
      "events.duckdb 0664 -> 0600",
      "server-url 0644 -> 0600",
    ]) {
      assert.ok(lines[0]?.includes(change), `${change} in ${lines[0]}`);
    }

    // A directory shared with other files keeps its mode (only the server's files are
    // made private), and a warning says why: serve --data-dir /etc once closed /etc.
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, "metadata.sqlite"), 0o644);
    fs.writeFileSync(path.join(dataDir, "someone-else.conf"), "", { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, "someone-else.conf"), 0o644);
    const shared = await startServer(["--data-dir", dataDir], EMBEDDED);
    await upAndRunning(dataDir);
    const sharedOutput = shared.output();
    assert.equal(await shared.stop(), 0);
    assert.equal(modeOf(dataDir), 0o755, "the shared directory's mode left");
    assert.equal(modeOf(path.join(dataDir, "someone-else.conf")), 0o644, "another's file left");
    assert.equal(modeOf(path.join(dataDir, "metadata.sqlite")), 0o600, "the server's own file made private");
    assert.ok(sharedOutput.includes("the data directory also holds someone-else.conf"), sharedOutput);
    fs.rmSync(path.join(dataDir, "someone-else.conf"));
    fs.chmodSync(dataDir, 0o700);

    // Once private, a start has nothing to say about it.
    const again = await startServer(["--data-dir", dataDir], EMBEDDED);
    await upAndRunning(dataDir);
    const quiet = again.output();
    assert.equal(await again.stop(), 0);
    assert.ok(!quiet.includes("data directory made private"), quiet);
  });
});
