// Configuration: defaults, flags over environment, clear failures, and a README that
// documents every variable with its default.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import zlib from "node:zlib";
import { ConfigError, loadConfig, SETTINGS } from "../src/config.js";
import { bundledGeoSources } from "../src/enrich/geo.js";

describe("configuration", () => {
  it("has a default for every setting", () => {
    const config = loadConfig({});
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.port, 8000);
    assert.equal(config.dataDir, path.resolve("./data"));
    assert.deepEqual(config.trustProxy, { kind: "none" });
    assert.equal(config.publicUrl, null);
    assert.equal(config.apiRateLimit, 600);
    assert.ok(Object.isFrozen(config));
  });

  it("reads the environment and lets flags win", () => {
    const env = { ANALYTICS_PORT: "9000", ANALYTICS_HOST: "0.0.0.0", ANALYTICS_DATA_DIR: "/tmp/env-dir" };
    const fromEnv = loadConfig(env);
    assert.equal(fromEnv.port, 9000);
    assert.equal(fromEnv.host, "0.0.0.0");
    assert.equal(fromEnv.dataDir, "/tmp/env-dir");
    const withFlags = loadConfig(env, { port: "9100", "data-dir": "/tmp/flag-dir" });
    assert.equal(withFlags.port, 9100);
    assert.equal(withFlags.host, "0.0.0.0");
    assert.equal(withFlags.dataDir, "/tmp/flag-dir");
    assert.deepEqual(loadConfig({ ANALYTICS_TRUST_PROXY: "1" }).trustProxy, { kind: "hops", hops: 1 });
    assert.equal(
      loadConfig({ ANALYTICS_PUBLIC_URL: "https://stats.example.org/" }).publicUrl,
      "https://stats.example.org",
    );
  });

  it("fails fast naming every bad variable", () => {
    assert.throws(
      () =>
        loadConfig({ ANALYTICS_PORT: "http", ANALYTICS_API_RATE_LIMIT: "0", ANALYTICS_TRUST_PROXY: "maybe" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /ANALYTICS_PORT="http"/.test(error.message) &&
        /ANALYTICS_API_RATE_LIMIT="0"/.test(error.message) &&
        /ANALYTICS_TRUST_PROXY="maybe"/.test(error.message),
    );
    assert.throws(() => loadConfig({}, { port: "70000" }), /--port="70000"/);
    assert.throws(() => loadConfig({ ANALYTICS_PUBLIC_URL: "ftp://x" }), /ANALYTICS_PUBLIC_URL/);
    // Links are made by appending paths: a query or fragment would end up before them.
    for (const url of ["http://x.com/?a=1", "http://x.com/stats#top", "http://x.com/?", "http://x.com#"]) {
      assert.throws(
        () => loadConfig({ ANALYTICS_PUBLIC_URL: url }),
        new RegExp(
          `ANALYTICS_PUBLIC_URL=${JSON.stringify(url).replace(/[?.]/g, "\\$&")}: must not carry a query string or fragment`,
        ),
        url,
      );
    }
    assert.equal(
      loadConfig({ ANALYTICS_PUBLIC_URL: "https://x.com/stats/" }).publicUrl,
      "https://x.com/stats",
    );
    assert.throws(() => loadConfig({ ANALYTICS_LOG_LEVEL: "loud" }), /ANALYTICS_LOG_LEVEL/);
  });

  it("bounds what one client can hold: connections per address, headers and request timeouts", () => {
    const defaults = loadConfig({});
    assert.equal(defaults.maxConnectionsPerClient, 256);
    assert.equal(defaults.headersTimeoutMs, 20_000);
    assert.equal(defaults.requestTimeoutMs, 300_000);
    const set = loadConfig({
      ANALYTICS_MAX_CONNECTIONS_PER_CLIENT: "0",
      ANALYTICS_HEADERS_TIMEOUT_MS: "1000",
      ANALYTICS_REQUEST_TIMEOUT_MS: "1000",
    });
    assert.equal(set.maxConnectionsPerClient, 0, "0 lifts the limit");
    assert.equal(set.headersTimeoutMs, 1000);
    assert.throws(
      () => loadConfig({ ANALYTICS_MAX_CONNECTIONS_PER_CLIENT: "-1" }),
      /ANALYTICS_MAX_CONNECTIONS_PER_CLIENT/,
    );
    assert.throws(() => loadConfig({ ANALYTICS_HEADERS_TIMEOUT_MS: "0" }), /ANALYTICS_HEADERS_TIMEOUT_MS/);
    assert.throws(
      () => loadConfig({ ANALYTICS_HEADERS_TIMEOUT_MS: "5000", ANALYTICS_REQUEST_TIMEOUT_MS: "1000" }),
      /ANALYTICS_REQUEST_TIMEOUT_MS: must be at least ANALYTICS_HEADERS_TIMEOUT_MS \(5000\)/,
    );
  });

  it("reads the email-report settings and never echoes an SMTP URL", () => {
    const defaults = loadConfig({});
    assert.equal(defaults.smtpUrl, null);
    assert.equal(defaults.mailFrom, "Analytics <analytics@localhost>");
    assert.equal(defaults.reportPeriod, "week");
    const set = loadConfig({
      ANALYTICS_SMTP_URL: "smtps://user:secret@mail.example.org:465",
      ANALYTICS_MAIL_FROM: "reports@example.org",
      ANALYTICS_REPORT_PERIOD: "month",
    });
    assert.equal(set.smtpUrl, "smtps://user:secret@mail.example.org:465");
    assert.equal(set.mailFrom, "reports@example.org");
    assert.equal(set.reportPeriod, "month");
    assert.throws(
      () =>
        loadConfig({
          ANALYTICS_SMTP_URL: "https://user:secret@mail.example.org",
          ANALYTICS_MAIL_FROM: "nobody",
          ANALYTICS_REPORT_PERIOD: "daily",
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /ANALYTICS_SMTP_URL: must be an smtp/.test(error.message) &&
        !error.message.includes("secret") &&
        /ANALYTICS_MAIL_FROM="nobody"/.test(error.message) &&
        /ANALYTICS_REPORT_PERIOD="daily": must be one of: week, month/.test(error.message),
    );
  });

  it("checks at start that ANALYTICS_GEOIP_DB is an .mmdb database", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-geoip-"));
    try {
      const garbage = path.join(dir, "garbage.mmdb");
      fs.writeFileSync(garbage, "garbage");
      const gzip = path.join(dir, "GeoLite2-City.mmdb.gz");
      fs.writeFileSync(gzip, zlib.gzipSync("a database"));
      for (const [file, problem] of [
        [garbage, "is not a MaxMind .mmdb database (it has no metadata section)"],
        [gzip, "is gzip-compressed: give the .mmdb file it holds"],
        [dir, "names a directory, not a file"],
        [path.join(dir, "none.mmdb"), "names no file"],
      ] as const) {
        assert.throws(
          () => loadConfig({ ANALYTICS_GEOIP_DB: file }),
          (error: unknown) =>
            error instanceof ConfigError &&
            error.message.includes(`ANALYTICS_GEOIP_DB=${JSON.stringify(file)}: ${problem}`),
          file,
        );
      }
      const database = bundledGeoSources().ipv6;
      assert.equal(loadConfig({ ANALYTICS_GEOIP_DB: database }).geoipDb, database);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is documented in the README: every variable with its default", () => {
    const readme = fs.readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    for (const setting of Object.values(SETTINGS)) {
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${setting.env}\``));
      assert.ok(row, `README has no row for ${setting.env}`);
      const shownDefault = setting.default === "" ? "(none)" : `\`${setting.default}\``;
      assert.ok(row.includes(shownDefault), `README row of ${setting.env} shows the default ${shownDefault}`);
    }
  });
});
