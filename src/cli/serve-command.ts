// `analytics serve`: checks it can listen, migrates, listens, and on SIGTERM/SIGINT stops
// accepting requests, lets the ones in flight finish and closes the stores before exiting.

import type { FastifyBaseLogger } from "fastify";
import { buildApp } from "../app.js";
import { createContainer } from "../container.js";
import { deprioritiseHelperThreads } from "../helper-threads.js";
import { type StoreSocket, serveStoreSocket } from "../storage/duckdb/store-socket.js";
import type { EventStore } from "../storage/ports.js";
import { configFrom, parseCommand } from "./command-options.js";
import { checkCanListen, listenError } from "./listen-check.js";

/** At most one back-pressure warning a minute: under sustained load every write would log one. */
const BACK_PRESSURE_LOG_MS = 60_000;

export async function serveCommand(args: string[]): Promise<number> {
  const config = configFrom(parseCommand(args, { host: { type: "string" }, port: { type: "string" } }));
  // Before any store is opened (and created, or migrated), so a taken port changes nothing.
  await checkCanListen(config.host, config.port);
  // Background work reports to the server's logger, which exists once the app does.
  let log: FastifyBaseLogger | null = null;
  let lastBackPressureLog = Number.NEGATIVE_INFINITY;
  const container = await createContainer(config, {
    onBackgroundError: (error) =>
      log ? log.error({ err: error }, "writing buffered hits failed; they are kept") : console.error(error),
    onBackPressure: (buffered) => {
      if (!log || Date.now() - lastBackPressureLog < BACK_PRESSURE_LOG_MS) return;
      lastBackPressureLog = Date.now();
      log.warn({ buffered }, "the event store is behind: hits are answered as their writes end");
    },
  });
  const app = await buildApp(container, { logger: { level: config.logLevel } });
  log = app.log;
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Taken since the check (another process was quicker): the same message, stores closed.
    await app.close();
    await container.close();
    throw listenError(error, config.host, config.port);
  }
  container.reports?.start(app.log);
  // The embedded store has one writer, this process: commands reach it through a socket.
  const storeSocket = config.clickhouseUrl
    ? null
    : await openStoreSocket(container.events, config.dataDir, app.log);
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
        .then(() => storeSocket?.close())
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

/** The control socket, or null (logged) when it cannot listen, e.g. a data path too long for a socket. */
async function openStoreSocket(
  events: EventStore,
  dataDir: string,
  log: { warn(details: object, message: string): void },
): Promise<StoreSocket | null> {
  try {
    return await serveStoreSocket(events, dataDir);
  } catch (error) {
    log.warn(
      { err: error },
      "no control socket: commands that need the event store must wait for this server to stop",
    );
    return null;
  }
}
