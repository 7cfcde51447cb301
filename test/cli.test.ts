// The `analytics` command as a separate process: users create, keys rotate, migrate,
// usage errors, and all of it while a server runs on the same data directory (and the
// same metadata store, when the metadata engine under test is PostgreSQL).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CLI,
  createWebsite,
  runCli,
  runCliUnprivileged,
  startServer,
  unprivilegedMissing,
} from "./support/cli.js";
import { tempDir } from "./support/test-app.js";
import { freshMetadata, METADATA_ENGINE, type TestMetadata } from "./support/test-metadata.js";

const KEY = /^ak_[0-9a-f]{16}[A-Za-z0-9_-]{43}$/;

describe("analytics CLI", () => {
  const dataDir = tempDir("analytics-cli-");
  let metadata: TestMetadata;
  before(async () => {
    metadata = await freshMetadata();
  });
  after(async () => {
    await metadata.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const cli = (args: string[], env: Record<string, string> = {}, input?: string) =>
    runCli(args, { ...metadata.env, ...env }, input);

  it("migrates an empty data directory", () => {
    const result = cli(["migrate", "--data-dir", dataDir]);
    assert.equal(result.status, 0, result.stderr);
    if (METADATA_ENGINE === "sqlite") assert.ok(fs.existsSync(`${dataDir}/metadata.sqlite`));
    else assert.match(result.stdout, /Metadata store in PostgreSQL at [\w.]+:\d+\/\w+ is up to date/);
    assert.equal(cli(["migrate", "--data-dir", dataDir]).status, 0, "migrating twice is harmless");
  });

  it("creates users and prints the key alone on the last line", () => {
    const result = cli([
      "users",
      "create",
      "--email",
      "Owner@Example.org",
      "--name",
      "Owner",
      "--admin",
      "--data-dir",
      dataDir,
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.lastLine, KEY);
    assert.match(result.stdout, /owner@example\.org/);
  });

  it("refuses a duplicate or invalid email and missing options", () => {
    const duplicate = cli(["users", "create", "--email", "owner@example.org", "--data-dir", dataDir]);
    assert.equal(duplicate.status, 1);
    assert.match(duplicate.stderr, /already been taken/);
    const invalid = cli(["users", "create", "--email", "not-an-email", "--data-dir", dataDir]);
    assert.equal(invalid.status, 1);
    assert.match(invalid.stderr, /valid email/);
    const missing = cli(["users", "create", "--data-dir", dataDir]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--email is required/);
    const unknownFlag = cli([
      "users",
      "create",
      "--email",
      "x@example.org",
      "--colour",
      "red",
      "--data-dir",
      dataDir,
    ]);
    assert.equal(unknownFlag.status, 2);
    const rotateUnknown = cli(["keys", "rotate", "--email", "nobody@example.org", "--data-dir", dataDir]);
    assert.equal(rotateUnknown.status, 1);
    assert.match(rotateUnknown.stderr, /No user/);
  });

  it("sets web app passwords from standard input, and a server prints its setup code until a user exists", async () => {
    const dir = tempDir("analytics-cli-web-");
    const own = await freshMetadata();
    const run = (args: string[], input?: string) => runCli([...args, "--data-dir", dir], own.env, input);
    const signIn = (baseUrl: string, email: string, password: string) =>
      fetch(`${baseUrl}/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email, password }),
      });
    try {
      const fresh = await startServer(["--data-dir", dir], own.env);
      try {
        // Logged right after "Server listening", which startServer waits for.
        for (let waited = 0; waited < 5_000 && !/setup code/.test(fresh.output()); waited += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const code = /setup code ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(fresh.output())?.[1];
        assert.ok(code, `the log names the setup code:\n${fresh.output()}`);
        assert.match(fresh.output(), new RegExp(`${fresh.baseUrl}/setup`));
        const home = await fetch(`${fresh.baseUrl}/`, { redirect: "manual" });
        assert.equal(home.status, 303);
        assert.equal(home.headers.get("location"), "/setup");
        // Everything it printed is a line of its log: nothing a library says on the side.
        for (const line of fresh.output().split("\n").filter(Boolean))
          assert.doesNotThrow(() => JSON.parse(line), `a JSON log line: ${line}`);
      } finally {
        await fresh.stop();
      }

      // A log level that hides warnings still shows the code, on standard error.
      const quiet = spawn(CLI, ["serve", "--port", "0", "--data-dir", dir], {
        env: { ...process.env, ...own.env, ANALYTICS_LOG_LEVEL: "error" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const printed = await new Promise<string>((resolve) => {
        let output = "";
        const timer = setTimeout(() => resolve(output), 20_000);
        quiet.stderr.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (/setup code [A-Z2-9]{4}-[A-Z2-9]{4}/.test(output)) {
            clearTimeout(timer);
            resolve(output);
          }
        });
      });
      const stopped = new Promise((resolve) => quiet.once("close", resolve));
      quiet.kill("SIGTERM");
      await stopped;
      assert.match(printed, /^no user yet: open http:\/\/[\d.]+:\d+\/setup and enter the setup code/m);

      const short = run(["users", "create", "--email", "web@example.org", "--password"], "short\n");
      assert.equal(short.status, 1);
      assert.match(short.stderr, /at least 8 characters/);
      const created = run(
        ["users", "create", "--email", "web@example.org", "--password"],
        "first passphrase\n",
      );
      assert.equal(created.status, 0, created.stderr);
      assert.match(created.lastLine, KEY);
      assert.match(created.stdout, /signs in to the web app/);

      const server = await startServer(["--data-dir", dir], own.env);
      try {
        assert.doesNotMatch(server.output(), /setup code/, "a server with users prints no code");
        assert.equal((await signIn(server.baseUrl, "web@example.org", "first passphrase")).status, 303);
        const reset = run(["users", "reset-password", "--email", "Web@Example.org"], "second passphrase\r\n");
        assert.equal(reset.status, 0, reset.stderr);
        assert.match(reset.stdout, /sign-ins? of theirs has ended/);
        assert.equal((await signIn(server.baseUrl, "web@example.org", "first passphrase")).status, 401);
        assert.equal((await signIn(server.baseUrl, "web@example.org", "second passphrase")).status, 303);
      } finally {
        await server.stop();
      }
      const none = run(["users", "reset-password", "--email", "web@example.org"], "");
      assert.equal(none.status, 2, "nothing on standard input is no password");
      assert.equal(none.stderr, "No password: give it on the first line of standard input.\n");
      const nobody = run(["users", "reset-password", "--email", "nobody@example.org"], "third passphrase\n");
      assert.equal(nobody.status, 1);
      assert.match(nobody.stderr, /No user/);
    } finally {
      await own.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("explains unknown commands and bad configuration", () => {
    const unknown = cli(["frobnicate"]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /Unknown command/);
    assert.match(unknown.stderr, /users create/);
    const help = cli(["--help"]);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /keys rotate/);
    const badConfig = cli(["migrate", "--data-dir", dataDir], { ANALYTICS_API_RATE_LIMIT: "lots" });
    assert.equal(badConfig.status, 2);
    assert.match(badConfig.stderr, /ANALYTICS_API_RATE_LIMIT/);
    // A file setting naming a directory: said as the variable's problem, no stack trace.
    const directory = cli(["serve", "--port", "0", "--data-dir", dataDir], {
      ANALYTICS_REFERRER_SPAM: dataDir,
    });
    assert.equal(directory.status, 2, directory.stderr);
    assert.equal(
      directory.stderr,
      `Invalid configuration:\n  ANALYTICS_REFERRER_SPAM=${JSON.stringify(dataDir)}: names a directory, not a file\n`,
    );
  });

  it("works while a server runs on the same data directory", async () => {
    const server = await startServer(["--data-dir", dataDir], metadata.env);
    try {
      const created = cli(["users", "create", "--email", "live@example.org", "--data-dir", dataDir]);
      assert.equal(created.status, 0, created.stderr);
      const oldKey = created.lastLine;
      const list = (key: string) =>
        fetch(`${server.baseUrl}/api/v1/websites`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(
        (await list(oldKey)).status,
        200,
        "a key made by the CLI works at once on the running server",
      );
      const websiteId = await createWebsite(server.baseUrl, oldKey, "live.example");

      const rotated = cli(["keys", "rotate", "--email", "live@example.org", "--data-dir", dataDir]);
      assert.equal(rotated.status, 0, rotated.stderr);
      assert.match(rotated.lastLine, KEY);
      assert.notEqual(rotated.lastLine, oldKey);
      assert.equal((await list(oldKey)).status, 401, "the old key stops working at once");
      const withNew = await list(rotated.lastLine);
      assert.equal(withNew.status, 200);
      assert.equal(((await withNew.json()) as { meta: { total: number } }).meta.total, 1);
      const migrated = cli(["migrate", "--data-dir", dataDir]);
      assert.equal(migrated.status, 0, "migrate runs beside the server");
      assert.match(
        migrated.stdout,
        /in use by a running server/,
        "and says the server keeps the event store",
      );
      // The embedded event store has one writer, the server: commands that need it run
      // through the server's control socket.
      const imported = await fetch(`${server.baseUrl}/api/v1/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${rotated.lastLine}`, "content-type": "application/json" },
        body: JSON.stringify({
          events: [
            {
              website_id: websiteId,
              ts: new Date().toISOString(),
              page: "https://live.example/beside",
              user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
            },
          ],
        }),
      });
      assert.equal(imported.status, 202);
      const importedBody = (await imported.json()) as { accepted: number };
      assert.equal(importedBody.accepted, 1, JSON.stringify(importedBody));
      const rebuilt = cli(["aggregates", "rebuild", "--data-dir", dataDir]);
      assert.equal(rebuilt.status, 0, rebuilt.stderr);
      assert.match(rebuilt.stdout, /Rebuilt the aggregates of every website from 1 events/);
      const exported = cli(["export", "--data-dir", dataDir]);
      assert.equal(exported.status, 0, exported.stderr);
      const lines = exported.stdout.trimEnd().split("\n");
      assert.equal(lines.length, 2, "the header and the one event");
      assert.equal(JSON.parse(lines[1] as string).page, "/beside");
    } finally {
      assert.equal(await server.stop("SIGTERM"), 0, "the server exits cleanly on SIGTERM");
    }
  });

  it("rebuilds the aggregates once the server has stopped", () => {
    const all = cli(["aggregates", "rebuild", "--data-dir", dataDir]);
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /Rebuilt the aggregates of every website from \d+ events/);
    const one = cli(["aggregates", "rebuild", "--website", "1", "--data-dir", dataDir]);
    assert.equal(one.status, 0, one.stderr);
    assert.match(one.stdout, /website 1/);
    assert.equal(cli(["aggregates", "rebuild", "--website", "x", "--data-dir", dataDir]).status, 2);
    assert.equal(cli(["aggregates", "rebuild", "--website", "0", "--data-dir", dataDir]).status, 2);
  });

  it("refuses a port in use before creating any storage, naming host and port", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const { port } = holder.address() as net.AddressInfo;
    const parent = tempDir("analytics-cli-port-");
    const fresh = path.join(parent, "data");
    try {
      const result = cli(["serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", fresh]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`127\\.0\\.0\\.1:${port}: port ${port} is in use`));
      assert.doesNotMatch(result.stderr, /EADDRINUSE|\n\s+at /, "a message, not a stack trace");
      assert.equal(fs.existsSync(fresh), false, "the data directory was not even created");
    } finally {
      holder.close();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it("refuses a data directory that is a file or lies under one, in one line, for every command", () => {
    const parent = tempDir("analytics-cli-file-");
    const file = path.join(parent, "not-a-dir");
    fs.writeFileSync(file, "");
    // World-readable, as /etc/passwd is: serve once made such a file its owner's alone
    // (0600) before failing, which on /etc/passwd stops every other user's lookups.
    fs.chmodSync(file, 0o644);
    const commands = [
      ["serve", "--port", "0"],
      ["migrate"],
      ["users", "create", "--email", "a@b.co"],
      ["keys", "rotate", "--email", "a@b.co"],
      ["aggregates", "rebuild"],
      ["reports", "send", "--dry-run"],
      ["export"],
      ["import", "--file", file],
      ["metadata", "copy", "--to", path.join(parent, "copy")],
    ];
    try {
      for (const command of commands) {
        const isFile = cli([...command, "--data-dir", file]);
        assert.equal(isFile.status, 2, `${command.join(" ")}: ${isFile.stderr}`);
        assert.equal(
          isFile.stderr,
          `The data directory ${file} is a file, not a directory.\n`,
          command.join(" "),
        );
        const under = cli([...command, "--data-dir", path.join(file, "data")]);
        assert.equal(under.status, 2, `${command.join(" ")}: ${under.stderr}`);
        assert.equal(
          under.stderr,
          `The data directory ${path.join(file, "data")} cannot be created: ${file} is a file, not a directory.\n`,
          command.join(" "),
        );
      }
      // A symbolic link to nothing (a volume not mounted, a moved directory): named with
      // its target, where mkdir would fail later with a raw EEXIST.
      const dangling = path.join(parent, "link");
      fs.symlinkSync(path.join(parent, "gone"), dangling);
      for (const command of [["serve", "--port", "0"], ["migrate"], ["export"]]) {
        for (const dataDir of [dangling, path.join(dangling, "data")]) {
          const linked = cli([...command, "--data-dir", dataDir]);
          assert.equal(linked.status, 2, `${command.join(" ")}: ${linked.stderr}`);
          assert.equal(
            linked.stderr,
            `The data directory ${dataDir} cannot be created: ${dangling} is a symbolic link to ${path.join(parent, "gone")}, which does not exist.\n`,
          );
        }
      }
      fs.rmSync(dangling);
      assert.deepEqual(fs.readdirSync(parent), ["not-a-dir"], "nothing was created");
      assert.equal(fs.statSync(file).mode & 0o777, 0o644, "the file's mode untouched");
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it("refuses a data directory it may not create or write, in one line", {
    skip: unprivilegedMissing() ?? false,
  }, () => {
    const parent = tempDir("analytics-cli-locked-");
    fs.chmodSync(parent, 0o755); // the command may run as nobody: it must see inside
    const locked = path.join(parent, "locked");
    fs.mkdirSync(locked);
    fs.chmodSync(locked, 0o555); // searchable by anyone, writable by no one but root
    const existing = path.join(parent, "existing");
    fs.mkdirSync(existing);
    fs.chmodSync(existing, 0o555);
    try {
      const inLocked = path.join(locked, "data");
      const create = runCliUnprivileged(["migrate", "--data-dir", inLocked], metadata.env);
      assert.equal(create.status, 2, create.stderr);
      assert.equal(
        create.stderr,
        `The data directory ${inLocked} cannot be created: ${locked} is not writable by this user.\n`,
      );
      const write = runCliUnprivileged(
        ["users", "create", "--email", "a@b.co", "--data-dir", existing],
        metadata.env,
      );
      assert.equal(write.status, 2, write.stderr);
      assert.equal(
        write.stderr,
        `The data directory ${existing} is not readable and writable by this user.\n`,
      );
    } finally {
      fs.chmodSync(locked, 0o700);
      fs.chmodSync(existing, 0o700);
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it("refuses an option given twice, in one line, before creating anything", () => {
    const parent = tempDir("analytics-cli-twice-");
    const [a, b] = [path.join(parent, "a"), path.join(parent, "b")];
    try {
      for (const [args, option] of [
        [["serve", "--port", "18082", "--port", "18083", "--data-dir", a], "--port"],
        [["serve", "--port", "0", "--data-dir", a, "--data-dir", b], "--data-dir"],
        [["migrate", "--data-dir", a, "--data-dir=b"], "--data-dir"],
        [["reports", "send", "--dry-run", "--dry-run", "--data-dir", a], "--dry-run"],
      ] as const) {
        const twice = cli([...args]);
        assert.equal(twice.status, 2, `${args.join(" ")}: ${twice.stderr}`);
        assert.equal(twice.stderr, `${option} is given more than once: give it once.\n`, args.join(" "));
      }
      assert.deepEqual(fs.readdirSync(parent), [], "nothing was created");
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it("says in one line how to give a value that starts with a dash", () => {
    const dash = cli(["serve", "--port", "-1", "--data-dir", dataDir]);
    assert.equal(dash.status, 2, dash.stderr);
    assert.equal(dash.stderr, "--port -1: a value starting with a dash is given as --port=-1\n");
    const given = cli(["serve", "--port=-1", "--data-dir", dataDir]);
    assert.equal(given.status, 2, given.stderr);
    assert.match(given.stderr, /--port="-1": must be an integer from 0 to 65535/);
  });

  it("refuses to rebuild a website that does not exist, naming it", () => {
    const missing = cli(["aggregates", "rebuild", "--website", "999", "--data-dir", dataDir]);
    assert.equal(missing.status, 1, missing.stdout);
    assert.match(missing.stderr, /no website with id 999/);
    assert.doesNotMatch(missing.stderr, /\n\s+at /, "a message, not a stack trace");
    assert.doesNotMatch(missing.stdout, /Rebuilt/);
  });
});
