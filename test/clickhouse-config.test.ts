// ANALYTICS_CLICKHOUSE_URL and ANALYTICS_CLICKHOUSE_CLUSTER: what is accepted, and the
// clear failures for what is not (before any connection is made), and for a server that
// cannot be used (one line, as every other failure of a command).

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../src/config.js";
import { openEventStore } from "../src/storage/open-storage.js";
import { runCliAsync } from "./support/cli.js";
import { CLICKHOUSE_URLS, clickhouseMissing } from "./support/event-stores.js";
import { tempDir } from "./support/test-app.js";

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

describe("ClickHouse that cannot be used", () => {
  it("fails migrate and serve with the one line that says why, nothing of the client's own log", async (t) => {
    // Another web server on the port given: a page of many lines, or nothing.
    const other = http.createServer((_request, response) => {
      response
        .writeHead(404, { "content-type": "text/html" })
        .end(
          "<!DOCTYPE html>\n<html>\n  <head><title>Not Found</title></head>\n  <body><h1>Not Found</h1></body>\n</html>\n",
        );
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherPort = (other.address() as net.AddressInfo).port;
    const empty = http.createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => empty.listen(0, "127.0.0.1", resolve));
    const emptyPort = (empty.address() as net.AddressInfo).port;
    // And a port nobody listens on, found once the servers above listen: found first, the
    // system once gave its number to one of them, which answered instead of refusing.
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const dataDir = tempDir("analytics-clickhouse-down-");
    const cases: [url: string, problem: RegExp][] = [
      [`http://127.0.0.1:${closed}`, /ECONNREFUSED/],
      [
        `http://127.0.0.1:${otherPort}`,
        /a web page \("Not Found"\), not ClickHouse's answer: is this the HTTP port/,
      ],
      [`http://127.0.0.1:${emptyPort}`, /an empty answer, not ClickHouse's: is this the HTTP port/],
    ];
    // Wrong credentials need a real server (the shim asks for none).
    if (CLICKHOUSE_URLS[0]) cases.push([CLICKHOUSE_URLS[0], /nobody/]);
    else t.diagnostic(`wrong credentials not tried: ${clickhouseMissing()}`);
    try {
      for (const [url, problem] of cases) {
        const origin = new URL(url).origin;
        const withCredentials = url === CLICKHOUSE_URLS[0] ? `http://nobody:wrong@${new URL(url).host}` : url;
        for (const command of [["migrate"], ["serve", "--port", "0"]]) {
          const result = await runCliAsync([...command, "--data-dir", dataDir], {
            ANALYTICS_CLICKHOUSE_URL: withCredentials,
          });
          assert.equal(result.status, 1, `${command[0]}: ${result.stderr}`);
          assert.match(result.stderr, /^[^\n]+\n$/, `${command[0]} at ${origin}: one line`);
          assert.ok(result.stderr.startsWith(`ClickHouse at ${origin}: `), result.stderr);
          assert.match(result.stderr, problem);
          assert.doesNotMatch(result.stderr, /wrong/, "no password shown");
        }
      }
    } finally {
      await new Promise((resolve) => other.close(resolve));
      await new Promise((resolve) => empty.close(resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
