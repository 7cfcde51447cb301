// The embedded engine as open-storage.ts sees it: one DuckDB file in the data directory
// that one process may open. A server opens it again after a fatal error, and serves it to
// the commands run beside it through its control socket (store-socket.ts). The store (and
// DuckDB's driver) is loaded when first opened, not with this module (see
// open-storage.ts).

import type { Config } from "../../config.js";
import type { EngineOptions, EventEngine } from "../event-engine.js";
import type { EventStore } from "../ports.js";
import { openFailure } from "./duckdb-errors.js";
import { RemoteEventStore } from "./remote-event-store.js";
import { serveStoreSocket, storeSocketPath } from "./store-socket.js";

export const duckDbEngine: EventEngine = {
  /** The default: used whenever no other engine is configured. */
  chosenBy: () => true,

  describe: (config) => config.dataDir,

  async open(config, options = {}) {
    try {
      return await (await store()).open(config.dataDir, options);
    } catch (error) {
      throw openFailure(error, config.dataDir);
    }
  },

  /**
   * DuckDB invalidates its database after a fatal error (a checkpoint that finds the disk
   * full): each attempt opens the file (DuckDB replays its log), migrates and checkpoints,
   * as the checkpoint needs room for everything logged since the last one, which is what
   * failed.
   */
  async reopen(config: Config, options: EngineOptions): Promise<EventStore> {
    const fresh = await (await store()).open(config.dataDir, options);
    try {
      await fresh.migrate();
      await fresh.checkpoint();
    } catch (error) {
      await fresh.close().catch(() => undefined);
      throw error;
    }
    return fresh;
  },

  async reachServer(config) {
    const socketPath = storeSocketPath(config.dataDir);
    return (await RemoteEventStore.answers(socketPath)) ? new RemoteEventStore(socketPath) : null;
  },

  serveCommands: (store, config) => serveStoreSocket(store, config.dataDir),

  dataFiles: ["events.duckdb", "events.duckdb.wal", "events.sock"],
};

async function store() {
  return (await import("./duckdb-event-store.js")).DuckDbEventStore;
}
