// The installed command runs node as `npm start` does: a server started through the
// package's bin (a symlink to the built file, as npm installs it) has the young generation
// and the malloc setting the command's first line asks for, and one started by plain
// `node FILE` says it has not.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI, type RunningServer, startServer } from "./support/cli.js";

const FLAGS = ["--min-semi-space-size=8", "--max-semi-space-size=8"];
const TUNABLE = "glibc.malloc.mmap_threshold=1048576";

interface LogLine {
  msg?: string;
  level?: number;
  v8Flags?: string[];
  glibcTunables?: string;
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
  for (let i = 0; i < 50 && !/started as the analytics command|runs without/.test(server.output()); i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return server.output();
}

describe("the installed analytics command", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-bin-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("starts node with the server's flags and malloc setting through the package's bin", async () => {
    const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const binFile = path.resolve(fileDir(), "..", "..", pkg.bin.analytics);
    assert.equal(binFile, CLI, "the bin is the built command");
    const bin = path.join(dir, "analytics");
    fs.symlinkSync(binFile, bin);
    const server = await startServer(["--data-dir", path.join(dir, "bin-data")], {}, [bin]);
    try {
      const output = await settled(server);
      const started = logLine(output, /started as the analytics command starts it/);
      assert.ok(started, `the server logs its settings:\n${output}`);
      assert.deepEqual(started.v8Flags, FLAGS);
      assert.equal(started.glibcTunables, TUNABLE);
      if (fs.existsSync(`/proc/${server.process.pid}/cmdline`)) {
        const argv = fs.readFileSync(`/proc/${server.process.pid}/cmdline`, "utf8").split("\0");
        for (const flag of FLAGS) assert.ok(argv.includes(flag), `node was started with ${flag}: ${argv}`);
        const environ = fs.readFileSync(`/proc/${server.process.pid}/environ`, "utf8").split("\0");
        assert.ok(environ.includes(`GLIBC_TUNABLES=${TUNABLE}`), `node was started with ${TUNABLE}`);
      }
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("warns when node was started without them", async () => {
    // Whatever the environment running the tests sets.
    const server = await startServer(["--data-dir", path.join(dir, "plain-data")], { GLIBC_TUNABLES: "" }, [
      process.execPath,
      CLI,
    ]);
    try {
      const warning = logLine(await settled(server), /runs without --min-semi-space-size=8/);
      assert.ok(warning, `a plain node start is reported:\n${server.output()}`);
      assert.deepEqual(warning.missing, [...FLAGS, `GLIBC_TUNABLES=${TUNABLE}`]);
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
    assert.ok(firstLine?.includes(`GLIBC_TUNABLES=${TUNABLE} `), "the first line sets the malloc threshold");
    // Linux before 5.1 reads 127 characters of it (BINPRM_BUF_SIZE 128) and would cut the rest.
    assert.ok(
      firstLine !== undefined && firstLine.length <= 127,
      `the first line fits older kernels: ${firstLine}`,
    );
    assert.ok(fs.statSync(CLI).mode & 0o100, "the built command is executable");
  });
});

function fileDir(): string {
  return path.dirname(new URL(import.meta.url).pathname);
}
