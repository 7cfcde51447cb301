#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576 node --min-semi-space-size=8 --max-semi-space-size=8
// The `analytics` command: dispatches to a subcommand and turns errors into a message on
// standard error and an exit code (1 for a failed operation, 2 for bad usage or config).
//
// The first line starts node the same way wherever the command is started from (the
// package's bin, `npm start`, a service unit running this file); serve-command.ts says
// when it was not:
// - a young generation of 8 MiB that keeps its size. Left to itself V8 starts it at 1 MiB
//   and shrinks it while the server is idle; collection then ran at 0.36x a bare node:http
//   endpoint against 0.62x with the flags (server on one core, load on the other).
// - glibc's malloc handing blocks of 1 MiB and more straight back to the system when freed.
//   Left to itself it raises that threshold to the size of the largest block freed (an
//   import's request body, 3.7 MB), and later ones come from its heaps, which keep the
//   pages: importing 1M events peaked at 351-354 MiB with it against 358-375 (bench/RESULTS.md,
//   "Memory an import leaves to malloc"). Other C libraries ignore the variable.
// The line stays under the 127 characters older Linux kernels read of it, so source maps
// are turned on below rather than by a flag there.

import { ConfigError } from "../config.js";
import { AppError, ValidationError } from "../errors.js";
import { UsageError } from "./command-options.js";
import { PRIVATE_UMASK } from "./data-dir-permissions.js";

const USAGE = `Usage: analytics <command> [options]

Commands:
  serve [--host H] [--port P] [--data-dir D]   Serve the API, tracker and pages (migrates first)
  migrate [--data-dir D]                       Create or upgrade every configured store
  users create --email E [--name N] [--admin] [--password]
                                               Create a user (--admin: may manage users through the API and the
                                               web app; --password: reads one for the web app, see below);
                                               prints the new API key on the last line
  users reset-password --email E               Set a user's web app password (read as below); ends their sign-ins
  keys rotate --email E                        Replace a user's API key; prints the new key on the last line
  aggregates rebuild [--website ID]            Recompute the statistics' aggregates from the raw events
  reports send [--period week|month] [--dry-run]
                                               Email the last full period's reports (--dry-run prints them)
  export [--website ID] [--from D] [--to D]    Write the stored events as NDJSON to standard output
  import [--file F]                            Read exported events (a file or standard input) into the event store
  metadata copy --to TARGET                    Copy users, keys, sign-ins, websites, salts, secrets and the report
                                               log into an empty store: a postgres:// URL, a data directory or an
                                               SQLite file

A password is typed twice at a terminal, or read from the first line of standard input.
Every command accepts --data-dir; environment variables are listed in the README.`;

type Command = (args: string[]) => Promise<number>;

// Loaded on demand, so a quick command does not pay for loading the whole server.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serve-command.js")).serveCommand,
  migrate: async () => (await import("./migrate-command.js")).migrateCommand,
  "users create": async () => (await import("./user-commands.js")).usersCreateCommand,
  "users reset-password": async () => (await import("./user-commands.js")).usersResetPasswordCommand,
  "keys rotate": async () => (await import("./user-commands.js")).keysRotateCommand,
  "aggregates rebuild": async () => (await import("./aggregates-command.js")).aggregatesRebuildCommand,
  "reports send": async () => (await import("./reports-command.js")).reportsSendCommand,
  export: async () => (await import("./export-command.js")).exportCommand,
  import: async () => (await import("./import-command.js")).importCommand,
  "metadata copy": async () => (await import("./metadata-copy-command.js")).metadataCopyCommand,
};

async function main(argv: string[]): Promise<number> {
  const [first = "", second = ""] = argv;
  if (first === "" || first === "help" || first === "--help" || first === "-h") {
    console.log(USAGE);
    return first === "" ? 2 : 0;
  }
  const twoWords = COMMANDS[`${first} ${second}`];
  const command = twoWords ?? COMMANDS[first];
  if (!command) {
    console.error(`Unknown command: ${argv.join(" ")}\n\n${USAGE}`);
    return 2;
  }
  return (await command())(argv.slice(twoWords ? 2 : 1));
}

// Every file a command creates (the data directory, the stores and the files their engines
// add later: SQLite's -wal/-shm, DuckDB's .wal, the control socket) is its user's alone.
process.umask(PRIVATE_UMASK);
// Stack traces in the TypeScript sources' lines, for the commands' modules: all loaded after this.
process.setSourceMapsEnabled(true);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = report(error);
  },
);

function report(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(error.message);
    return 2;
  }
  if (error instanceof ValidationError) {
    for (const messages of Object.values(error.fields))
      for (const message of messages) console.error(message);
    return 1;
  }
  if (error instanceof AppError) {
    console.error(error.message);
    return 1;
  }
  console.error(error);
  return 1;
}
