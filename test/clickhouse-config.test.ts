// ANALYTICS_CLICKHOUSE_URL and ANALYTICS_CLICKHOUSE_CLUSTER: what is accepted, and the
// clear failures for what is not (before any connection is made).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../src/config.js";
import { openEventStore } from "../src/storage/open-storage.js";

describe("ClickHouse configuration", () => {
  it("is off by default and takes one URL or a comma-separated list", () => {
    assert.equal(loadConfig({}).clickhouseUrl, null);
    assert.equal(loadConfig({}).clickhouseCluster, null);
    assert.deepEqual(loadConfig({ ANALYTICS_CLICKHOUSE_URL: "http://ch1:8123/" }).clickhouseUrl, [
      "http://ch1:8123",
    ]);
    const config = loadConfig({
      ANALYTICS_CLICKHOUSE_URL: " http://u:p@ch1:8123/stats , https://ch2:8443/stats",
      ANALYTICS_CLICKHOUSE_CLUSTER: "analytics",
    });
    assert.deepEqual(config.clickhouseUrl, ["http://u:p@ch1:8123/stats", "https://ch2:8443/stats"]);
    assert.equal(config.clickhouseCluster, "analytics");
  });

  it("names the variable and the problem of a bad value", () => {
    for (const [url, problem] of [
      ["ch1:8123", /not an absolute http\(s\) URL|must be http\(s\) URLs/],
      ["ftp://ch1", /http\(s\)/],
      ["http://ch1:8123/a/b", /database name/],
      ["http://ch1:8123/x-y", /database name/],
      ["http://ch1:8123/?database=x", /query/],
      ["http://ch1:8123/a,http://ch2:8123/b", /same database/],
      ["http://ch1:8123/a,http://ch2:8123/a,http://u:p@ch1:8123/a", /lists ch1:8123 twice/],
    ] as const) {
      assert.throws(
        () => loadConfig({ ANALYTICS_CLICKHOUSE_URL: url }),
        (error: Error) =>
          error instanceof ConfigError &&
          error.message.includes("ANALYTICS_CLICKHOUSE_URL") &&
          problem.test(error.message),
        url,
      );
    }
    assert.throws(
      () => loadConfig({ ANALYTICS_CLICKHOUSE_CLUSTER: "my cluster" }),
      /ANALYTICS_CLICKHOUSE_CLUSTER/,
    );
  });

  it("needs a cluster name for several nodes, and a URL for a cluster name", async () => {
    await assert.rejects(
      openEventStore(loadConfig({ ANALYTICS_CLICKHOUSE_URL: "http://ch1:8123,http://ch2:8123" })),
      (error: Error) => error instanceof ConfigError && /ANALYTICS_CLICKHOUSE_CLUSTER/.test(error.message),
    );
    await assert.rejects(
      openEventStore(loadConfig({ ANALYTICS_CLICKHOUSE_CLUSTER: "analytics" })),
      (error: Error) => error instanceof ConfigError && /ANALYTICS_CLICKHOUSE_URL/.test(error.message),
    );
  });
});
