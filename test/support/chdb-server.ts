// A current ClickHouse engine for the tests: chdb (ClickHouse in-process, from npm) behind
// as much of ClickHouse's HTTP interface as @clickhouse/client and the store use: the
// statement in the body or the `query` parameter (an INSERT's rows then in the body),
// settings as parameters, `database`, answers in the statement's format, errors as the
// server sends them. One engine per test process (chdb holds one data directory a process).

import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/** Parameters that are not settings, or settings of the HTTP layer chdb has not got. */
const NOT_ENGINE_SETTINGS = new Set([
  "query",
  "query_id",
  "database",
  "default_format",
  "session_id",
  "enable_http_compression",
  "send_progress_in_http_headers",
  "http_headers_progress_interval_ms",
  "wait_end_of_query",
]);

interface ChdbSession {
  queryAsync(query: string, options?: { format?: string }): Promise<{ text(): string }>;
  close(): void;
}

let started: Promise<string | null> | null = null;

/** Why chdb cannot run here, or null (then chdbUrl() gives the shim's URL). */
export function chdbMissing(): string | null {
  try {
    createRequire(import.meta.url).resolve("chdb");
    return null;
  } catch {
    return "chdb is not installed (npm ci installs it as a devDependency)";
  }
}

/** The base URL of this process's shim, started on the first call. */
export function chdbUrl(): Promise<string> {
  started ??= start();
  return started.then((url) => url ?? Promise.reject(new Error(chdbMissing() ?? "chdb did not start")));
}

async function start(): Promise<string | null> {
  if (chdbMissing()) return null;
  const { Session } = createRequire(import.meta.url)("chdb") as {
    Session: new (dir: string, options: { connectionArgs: string[] }) => ChdbSession;
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analytics-chdb-"));
  // The server's default (clickhouse-local, which chdb is, writes 64-bit integers unquoted).
  const session = new Session(dir, { connectionArgs: ["--output_format_json_quote_64bit_integers=1"] });
  process.once("exit", () => {
    session.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // One statement at a time: settings and the current database are the session's.
  let queue: Promise<unknown> = Promise.resolve();
  const run = (params: URLSearchParams, statement: string) => {
    const next = queue.then(() => execute(session, params, statement));
    queue = next.catch(() => undefined);
    return next;
  };
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://shim");
    if (url.pathname === "/ping") return void response.end("Ok.\n");
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const inUrl = url.searchParams.get("query");
    const statement = inUrl === null ? body : `${inUrl}\n${body}`;
    try {
      const text = await run(url.searchParams, statement);
      response.writeHead(200, { "content-type": "text/plain; charset=UTF-8" }).end(text);
    } catch (error) {
      const message = String((error as Error).message ?? error);
      const code = /Code: (\d+)/.exec(message)?.[1] ?? "1002";
      response
        .writeHead(500, { "content-type": "text/plain; charset=UTF-8", "x-clickhouse-exception-code": code })
        .end(
          `${/^Code: \d+/.test(message) ? message : `Code: ${code}. DB::Exception: ${message} (UNKNOWN_EXCEPTION)`}\n`,
        );
    }
  });
  server.unref();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function execute(session: ChdbSession, params: URLSearchParams, statement: string): Promise<string> {
  const settings = [...params].filter(([name]) => !NOT_ENGINE_SETTINGS.has(name));
  const database = params.get("database");
  for (const [name, value] of settings)
    await session.queryAsync(`SET ${name} = '${value.replace(/'/g, "")}'`);
  if (database) await session.queryAsync(`USE ${database}`);
  try {
    const result = await session.queryAsync(statement, {
      format: params.get("default_format") ?? "TabSeparated",
    });
    return result.text();
  } finally {
    if (database) await session.queryAsync("USE default");
    for (const [name] of settings) await session.queryAsync(`SET ${name} = DEFAULT`);
  }
}
