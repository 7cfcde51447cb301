// The ClickHouse engine as open-storage.ts sees it: chosen by ANALYTICS_CLICKHOUSE_URL, one
// server or a cluster's nodes (several need the cluster's name, as inserts and reads go
// through Distributed tables). Any number of processes may open it; nothing in the data directory.
// The store (and the ClickHouse client) is loaded when opened, not with this module
// (see open-storage.ts).

import { ConfigError } from "../../config.js";
import type { EventEngine } from "../event-engine.js";

export const clickHouseEngine: EventEngine = {
  chosenBy(config) {
    if (config.clickhouseCluster !== null && config.clickhouseUrl === null) {
      throw new ConfigError("ANALYTICS_CLICKHOUSE_CLUSTER is set but ANALYTICS_CLICKHOUSE_URL is not.");
    }
    return config.clickhouseUrl !== null;
  },

  describe: (config) => `ClickHouse (${config.clickhouseUrl?.length ?? 0} node(s))`,

  async open(config, options = {}) {
    const urls = config.clickhouseUrl ?? [];
    if (urls.length > 1 && config.clickhouseCluster === null) {
      throw new ConfigError(
        "ANALYTICS_CLICKHOUSE_URL lists several nodes: set ANALYTICS_CLICKHOUSE_CLUSTER to their cluster's name.",
      );
    }
    const { ClickHouseEventStore } = await import("./clickhouse-event-store.js");
    const store = new ClickHouseEventStore(
      { urls, cluster: config.clickhouseCluster },
      { clock: options.clock },
    );
    // The first round comes a fold interval after opening, once the server has migrated.
    if (options.upkeep) store.folder.start((error) => options.onUpkeepError?.(error));
    // A server migrates, which checks the list first; a command (import, export, a rebuild,
    // which folds the listed nodes alone) checks it here, before it reads or writes.
    else {
      try {
        await store.checkNodes();
      } catch (error) {
        await store.close();
        throw error;
      }
    }
    return store;
  },

  dataFiles: [],
};
