// ANALYTICS_CLICKHOUSE_URL against the cluster as ClickHouse reports it (system.clusters):
// a list that leaves a shard out, or names one twice, is refused by `migrate`, `serve`
// and the commands that read or write events, in one line (exit 2) before anything is done, since the tables would exist on some
// shards only while the Distributed tables read and write all of them. Needs a cluster of
// two shards or more (.ci/run's).

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { ConfigError } from "../src/config.js";
import { ClickHouseEventStore } from "../src/storage/clickhouse/clickhouse-event-store.js";
import { runCli } from "./support/cli.js";
import {
  CLICKHOUSE_CLUSTER,
  CLICKHOUSE_URLS,
  clickhouseMissing,
  provisionClickHouse,
} from "./support/event-stores.js";
import { tempDir } from "./support/test-app.js";

const missing =
  clickhouseMissing() ??
  (CLICKHOUSE_URLS.length < 2 || CLICKHOUSE_CLUSTER === ""
    ? "needs a cluster of two shards or more: ANALYTICS_TEST_CLICKHOUSE_URL lists one node"
    : null);
if (missing) console.log(`# ClickHouse cluster checks skipped: ${missing}`);

describe("ClickHouse URLs against the cluster's nodes", { skip: missing ?? false }, () => {
  it("refuses a list that leaves a shard out or names one twice, before creating anything", async () => {
    const provisioned = await provisionClickHouse();
    const [first, second] = provisioned.urls as [string, string];
    try {
      for (const [urls, problem] of [
        [[first], /^ANALYTICS_CLICKHOUSE_URL lists no node of shard \d+ of cluster \w+ \(.+:\d+\)/],
        [[second], /^ANALYTICS_CLICKHOUSE_URL lists no node of shard \d+ of cluster \w+ \(.+:\d+\)/],
        [provisioned.urls.concat(first), /^ANALYTICS_CLICKHOUSE_URL lists shard \d+ of cluster \w+ twice/],
      ] as const) {
        const store = new ClickHouseEventStore({ urls, cluster: provisioned.cluster });
        try {
          await assert.rejects(
            store.migrate(),
            (error: Error) => error instanceof ConfigError && problem.test(error.message),
            urls.join(","),
          );
        } finally {
          await store.close();
        }
      }
      const whole = new ClickHouseEventStore({ urls: provisioned.urls, cluster: provisioned.cluster });
      try {
        await assert.rejects(whole.countEvents(), /Database|Table/i, "no node was given the tables");
        await whole.migrate();
        assert.equal(await whole.countEvents(), 0, "the whole list is the cluster");
      } finally {
        await whole.close();
      }
    } finally {
      await provisioned.dispose();
    }
  });

  it("makes migrate and serve exit 2 with one line naming the shard left out, and refuse a URL given twice", async () => {
    const provisioned = await provisionClickHouse();
    const dataDir = tempDir("analytics-cluster-nodes-");
    const [first] = provisioned.urls as [string];
    const env = (urls: readonly string[]) => ({
      ...provisioned.env,
      ANALYTICS_CLICKHOUSE_URL: urls.join(","),
    });
    try {
      for (const command of [["migrate"], ["serve", "--port", "0"]]) {
        const partial = runCli([...command, "--data-dir", dataDir], env([first]));
        assert.equal(partial.status, 2, `${command[0]}: ${partial.stdout}${partial.stderr}`);
        assert.match(
          partial.stderr,
          /^ANALYTICS_CLICKHOUSE_URL lists no node of shard \d+ of cluster \w+ \(.+\)[^\n]*\n$/,
        );
        assert.doesNotMatch(partial.stdout, /Event store .* is up to date/);
        const twice = runCli([...command, "--data-dir", dataDir], env([...provisioned.urls, first]));
        assert.equal(twice.status, 2, `${command[0]}: ${twice.stdout}${twice.stderr}`);
        assert.match(twice.stderr, /ANALYTICS_CLICKHOUSE_URL.*lists .*127\.0\.0\.1:\d+ twice/);
      }
      const whole = runCli(["migrate", "--data-dir", dataDir], provisioned.env);
      assert.equal(whole.status, 0, whole.stderr);
      assert.match(whole.stdout, new RegExp(`Event store in ClickHouse \\(${CLICKHOUSE_URLS.length} node`));

      // The commands that read or write events check the list too, before they do: a
      // rebuild would fold the listed nodes alone.
      const exported = runCli(["export", "--data-dir", dataDir], provisioned.env);
      assert.equal(exported.status, 0, exported.stderr);
      const file = `${dataDir}/events.ndjson`;
      fs.writeFileSync(file, exported.stdout);
      for (const command of [["aggregates", "rebuild"], ["export"], ["import", "--file", file]]) {
        const partial = runCli([...command, "--data-dir", dataDir], env([first]));
        assert.equal(partial.status, 2, `${command.join(" ")}: ${partial.stdout}${partial.stderr}`);
        assert.match(
          partial.stderr,
          /^ANALYTICS_CLICKHOUSE_URL lists no node of shard \d+ of cluster \w+ \(.+\)[^\n]*\n$/,
          command.join(" "),
        );
        assert.equal(partial.stdout, "", `${command.join(" ")}: nothing written`);
        const fine = runCli([...command, "--data-dir", dataDir], provisioned.env);
        assert.equal(fine.status, 0, `${command.join(" ")}: ${fine.stderr}`);
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await provisioned.dispose();
    }
  });
});
