// The installed command runs node as `npm start` does: a server started through the
// package's bin (a symlink to the built file, as npm installs it) has the young generation
// the command's first line asks for, and one started by plain `node FILE` says it has not.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI, type RunningServer, startServer } from "./support/cli.js";

const FLAGS = ["--min-semi-space-size=8", "--max-semi-space-size=8"];

interface LogLine {
  msg?: string;
  level?: number;
  v8Flags?: string[];
  missing?: string[];
}

/** The pino line whose message matches, parsed. */
function logLine(output: string, message: RegExp): LogLine | null {
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as LogLine;
    if (parsed.msg && message.test(parsed.msg)) return parsed;
  }
  return null;
}

async function settled(server: RunningServer): Promise<string> {
  // The flags are logged right after "Server listening"; give the line a moment to arrive.
  for (let i = 0; i < 50 && !/young generation|runs without/.test(server.output()); i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return server.output();
}

describe("the installed analytics command", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-bin-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("starts node with the server's flags through the package's bin", async () => {
    const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const binFile = path.resolve(fileDir(), "..", "..", pkg.bin.analytics);
    assert.equal(binFile, CLI, "the bin is the built command");
    const bin = path.join(dir, "analytics");
    fs.symlinkSync(binFile, bin);
    const server = await startServer(["--data-dir", path.join(dir, "bin-data")], {}, [bin]);
    try {
      const output = await settled(server);
      const sized = logLine(output, /young generation sized/);
      assert.ok(sized, `the server logs its young generation:\n${output}`);
      assert.deepEqual(sized.v8Flags, FLAGS);
      if (fs.existsSync(`/proc/${server.process.pid}/cmdline`)) {
        const argv = fs.readFileSync(`/proc/${server.process.pid}/cmdline`, "utf8").split("\0");
        for (const flag of FLAGS) assert.ok(argv.includes(flag), `node was started with ${flag}: ${argv}`);
      }
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("warns when node was started without them", async () => {
    const server = await startServer(["--data-dir", path.join(dir, "plain-data")], {}, [
      process.execPath,
      CLI,
    ]);
    try {
      const warning = logLine(await settled(server), /runs without --min-semi-space-size=8/);
      assert.ok(warning, `a plain node start is reported:\n${server.output()}`);
      assert.deepEqual(warning.missing, FLAGS);
      assert.equal(warning.level, 40, "as a warning");
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("is what npm start runs", () => {
    const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    assert.match(pkg.scripts.start, /(^|&& )dist\/src\/cli\/main\.js serve$/);
    const firstLine = fs.readFileSync(CLI, "utf8").split("\n")[0];
    for (const flag of FLAGS) assert.ok(firstLine?.includes(flag), `the first line passes ${flag}`);
    assert.ok(fs.statSync(CLI).mode & 0o100, "the built command is executable");
  });
});

function fileDir(): string {
  return path.dirname(new URL(import.meta.url).pathname);
}
