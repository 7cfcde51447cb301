#!/usr/bin/env node
// Runs the API, CLI and salt test suites a second time with the metadata in PostgreSQL
// (each test app in a fresh schema of ANALYTICS_TEST_DATABASE_URL), so both metadata
// engines must give the same answers. Says so and succeeds when no test database is set.

import { spawnSync } from "node:child_process";
import fs from "node:fs";

/** Suites whose every case goes through the metadata store; add new API suites here. */
const SUITES = [
  "api-conventions",
  "cli",
  "collect-endpoint",
  "datacenter",
  "dropped-hits",
  "event-import",
  "export-import",
  "hostile-input",
  "import-split",
  "pages-access",
  "pages-stats",
  "report-log",
  "reports",
  "stats-api",
  "unicode-domains",
  "users-api",
  "visitor-hasher",
  "web-account",
  "web-keys",
  "web-websites",
  "web-users",
  "websites-api",
  "websites-list",
];

if (!process.env.ANALYTICS_TEST_DATABASE_URL) {
  console.log("# PostgreSQL metadata run skipped: ANALYTICS_TEST_DATABASE_URL is not set");
  process.exit(0);
}
const files = SUITES.map((suite) => `dist/test/${suite}.test.js`);
const missing = files.filter((file) => !fs.existsSync(file));
if (missing.length > 0) {
  console.error(`test-postgres: no such suite: ${missing.join(", ")}`);
  process.exit(1);
}
console.log(`# Running ${SUITES.length} suites again with the metadata in PostgreSQL`);
const result = spawnSync(
  process.execPath,
  ["--enable-source-maps", "--test", "--test-concurrency=2", ...files],
  { stdio: "inherit", env: { ...process.env, ANALYTICS_TEST_METADATA: "postgres" } },
);
process.exit(result.status ?? 1);
