// `analytics serve`: checks it can listen, migrates, listens, and on SIGTERM/SIGINT stops
// accepting requests, lets the ones in flight finish (busy connections are closed, and cut
// after the app's grace: app.ts), writes the buffered hits and closes the stores. A second
// signal meanwhile ends the process at once (the handlers are `once`).

import v8 from "node:v8";
import type { FastifyBaseLogger } from "fastify";
import { buildApp } from "../app.js";
import type { Config } from "../config.js";
import { createContainer } from "../container.js";
import { deprioritiseHelperThreads } from "../helper-threads.js";
import { reportBaseUrl } from "../reports/report-sender.js";
import type { Closable } from "../storage/event-engine.js";
import { EVENT_STORE_FILES, serveEventStoreToCommands } from "../storage/open-storage.js";
import type { EventStore } from "../storage/ports.js";
import { configFrom, parseCommand } from "./command-options.js";
import { type Tightening, tightenDataDir } from "./data-dir-permissions.js";
import { checkCanListen, listenError } from "./listen-check.js";
import { removeServerAddress, writeServerAddress } from "./server-address.js";

/** At most one back-pressure warning a minute: under sustained load every write would log one. */
const BACK_PRESSURE_LOG_MS = 60_000;
/** What the command's first line (main.ts) asks node for: a young generation that keeps 8 MiB. */
const YOUNG_GENERATION_FLAGS = ["--min-semi-space-size=8", "--max-semi-space-size=8"];
/** What the first line asks glibc's malloc for: blocks of 1 MiB and more handed back when freed. */
const MALLOC_TUNABLE = "glibc.malloc.mmap_threshold=1048576";
/**
 * How far each thread's heap may grow past what its last full collection kept (100: to
 * twice that) before the next one. Left to itself V8 lets it reach about four times while
 * the program allocates fast, as an import does: importing 10M events (bench/RESULTS.md,
 * "Memory while importing") the two threads' heaps peaked at 267 MB, 163 MB with
 * this, the process at 618 and 493 MB, at the same rate (full collections of a heap of
 * 20-35 MB live take 10-20 ms; its young-generation collections cost ten times more).
 * Set from here rather than the first line of main.ts: a runtime that no longer knows the
 * flag says so on standard error and runs on.
 */
const HEAP_GROWTH_FLAG = "--heap-growing-percent=100";

export async function serveCommand(args: string[]): Promise<number> {
  v8.setFlagsFromString(HEAP_GROWTH_FLAG); // before the import threads' heaps exist
  const config = configFrom(parseCommand(args, { host: { type: "string" }, port: { type: "string" } }));
  // Before any store is opened (and created, or migrated), so a taken port changes nothing.
  await checkCanListen(config.host, config.port);
  // Before the stores open the files, so nothing is read through a loose mode meanwhile.
  const tightened = tightenDataDir(config.dataDir, EVENT_STORE_FILES);
  // Background work reports to the server's logger, which exists once the app does.
  let log: FastifyBaseLogger | null = null;
  let lastBackPressureLog = Number.NEGATIVE_INFINITY;
  const container = await createContainer(config, {
    onNotice: (level, details, message) => (log ? log[level](details, message) : console.error(message)),
    onBackPressure: (buffered) => {
      if (!log || Date.now() - lastBackPressureLog < BACK_PRESSURE_LOG_MS) return;
      lastBackPressureLog = Date.now();
      log.warn({ buffered }, "the event store is behind: hits are answered as their writes end");
    },
  });
  const app = await buildApp(container, { logger: { level: config.logLevel } });
  log = app.log;
  reportTightening(app.log, tightened);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Taken since the check (another process was quicker): the same message, stores closed.
    await app.close();
    await container.close();
    throw listenError(error, config.host, config.port);
  }
  reportFirstLine(app.log);
  const address = reportBaseUrl({ ...config, port: listeningPort(app, config.port) });
  if (!writeServerAddress(config.dataDir, address))
    app.log.warn(
      { dataDir: config.dataDir },
      "cannot write server-url: reports send will not know this address",
    );
  if (container.setupCode !== null) {
    const line = `no user yet: open ${address}/setup and enter the setup code ${container.setupCode} to create the first one`;
    // Whatever the log level: without it nobody can set the server up.
    if (["trace", "debug", "info", "warn"].includes(app.log.level)) app.log.warn(line);
    else process.stderr.write(`${line}\n`);
  }
  container.reports?.start(app.log);
  // A store only this process may open (the embedded one): commands reach it through the server.
  const forCommands = await serveToCommands(config, container.events, app.log);
  const stopDeprioritising = deprioritiseHelperThreads(config.helperNiceness);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      stopDeprioritising();
      app.log.info({ signal, buffered: container.buffer.size }, "shutting down; flushing buffered events");
      app
        .close()
        .then(() => forCommands?.close())
        .then(() => removeServerAddress(config.dataDir))
        .then(() => container.close())
        .then(
          () => resolve(0),
          (error: unknown) => {
            app.log.error({ err: error }, "shutdown failed");
            resolve(1);
          },
        );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}

/** One line for what tightenDataDir changed (and one for what it could not), nothing when all was private. */
function reportTightening(log: FastifyBaseLogger, { changed, failed, foreign }: Tightening): void {
  if (foreign !== null)
    log.warn(
      { foreign },
      `the data directory also holds ${foreign}, which is not the server's: its own permissions were left as they are (keep the data in a directory of its own)`,
    );
  if (changed.length > 0)
    log.warn({ changed }, `data directory made private to this user: ${changed.join(", ")}`);
  if (failed.length > 0)
    log.error({ failed }, `data directory readable by other users, cannot change: ${failed.join(", ")}`);
}

/** The port the server listens on (the configured one, or the one chosen for port 0). */
function listeningPort(app: { server: { address(): unknown } }, configured: number): number {
  const address = app.server.address();
  return typeof address === "object" && address !== null && "port" in address
    ? Number(address.port)
    : configured;
}

/**
 * Logs the settings of the command's first line, and warns when node was started without
 * them (e.g. by `node dist/src/cli/main.js serve`): the server then collects at about 60 %
 * of its speed, and an import leaves more memory to malloc.
 */
function reportFirstLine(log: FastifyBaseLogger): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  const tunables = (process.env.GLIBC_TUNABLES ?? "").split(":");
  const missing = [
    ...YOUNG_GENERATION_FLAGS.filter((flag) => !given.includes(flag)),
    ...(tunables.includes(MALLOC_TUNABLE) ? [] : [`GLIBC_TUNABLES=${MALLOC_TUNABLE}`]),
  ];
  if (missing.length === 0)
    log.info(
      { v8Flags: YOUNG_GENERATION_FLAGS, glibcTunables: MALLOC_TUNABLE },
      "node started as the analytics command starts it",
    );
  else
    log.warn(
      { missing },
      `node runs without ${missing.join(" ")}: start the server as \`analytics serve\` (or pass them) to collect at full speed`,
    );
}

/**
 * What commands reach the event store through (the embedded store's control socket), or
 * null: when the engine needs none, or (logged) when it cannot listen, e.g. a data path too
 * long for a socket.
 */
async function serveToCommands(
  config: Config,
  events: EventStore,
  log: { warn(details: object, message: string): void },
): Promise<Closable | null> {
  try {
    return await serveEventStoreToCommands(config, events);
  } catch (error) {
    log.warn(
      { err: error },
      "commands cannot reach the event store through this server: those that need it must wait for it to stop",
    );
    return null;
  }
}
