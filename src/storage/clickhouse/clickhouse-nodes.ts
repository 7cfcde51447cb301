// The ClickHouse nodes of ANALYTICS_CLICKHOUSE_URL, one HTTP client each: statements that
// every node must run (DDL, deletes, folds, per-node reads), reads and inserts through one
// node (in turn), and the translation of driver and server errors into a
// StoreUnavailableError the edges understand.

import { Readable } from "node:stream";
import {
  type ClickHouseClient,
  ClickHouseLogLevel,
  type ClickHouseSettings,
  createClient,
} from "@clickhouse/client";
import { StoreUnavailableError } from "../../errors.js";
import { type Sql, sqlIdentifier } from "./sql-escape.js";

const DEFAULT_DATABASE = "analytics";

export interface ClickHouseTarget {
  /** HTTP URLs of every node; a path names the database, user:password@ the credentials. */
  urls: readonly string[];
  /** The cluster of the servers' remote_servers, or null for one server without Distributed tables. */
  cluster: string | null;
}

export class ClickHouseNodes {
  readonly database: Sql;
  readonly cluster: Sql | null;
  private readonly nodes: NodeRunner[];
  private next = 0;

  constructor(target: ClickHouseTarget) {
    if (target.urls.length === 0) throw new Error("no ClickHouse URL");
    const databases = new Set(target.urls.map(databaseOf));
    if (databases.size !== 1) throw new Error("every ClickHouse URL must name the same database");
    this.database = sqlIdentifier([...databases][0] as string);
    this.cluster = target.cluster === null ? null : sqlIdentifier(target.cluster);
    this.nodes = target.urls.map((raw) => {
      const url = new URL(raw);
      const client = createClient({
        url: url.origin,
        username: decodeURIComponent(url.username) || "default",
        password: decodeURIComponent(url.password),
        // How long a request may go without a byte from the node (the socket's idle time,
        // until the answer's headers). A long statement (a rebuild's day, a delete) sends a
        // progress header every 10 seconds, so a minute of nothing is a node that stopped
        // answering (stopped, or cut off): its statements fail as unavailable (503) after a
        // minute instead of holding requests, and the write buffer's hits, for ten.
        request_timeout: 60_000,
        // The client logs every failed request itself, a dozen lines each: its errors reach
        // the store as ClickHouseError, and the server logs those without flooding.
        log: { level: ClickHouseLogLevel.OFF },
        clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: "10000" },
      });
      return new NodeRunner(url.origin, client);
    });
  }

  /** Runs a statement on every node, one after the other; `each` sees the node's index. */
  async onEveryNode(work: (run: NodeRunner, index: number) => Promise<void>): Promise<void> {
    for (const [index, node] of this.nodes.entries()) await work(node, index);
  }

  /** Runs `work` on every node at once; its results in the nodes' order. */
  onEachNode<T>(work: (run: NodeRunner) => Promise<T>): Promise<T[]> {
    return Promise.all(this.nodes.map((node) => work(node)));
  }

  /** Rows of a query, as JSON objects, through the next node. */
  query<T>(statement: Sql, settings: ClickHouseSettings = {}): Promise<T[]> {
    return this.pick().query<T>(statement, settings);
  }

  /** One INSERT of `rows` (TabSeparated, in the order of `columns`) into `table` (qualified) through the next node. */
  insert(table: Sql, columns: readonly string[], rows: string, settings: ClickHouseSettings = {}) {
    return this.pick().insert(table, columns, rows, settings);
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.close()));
  }

  private pick(): NodeRunner {
    const node = this.nodes[this.next % this.nodes.length] as NodeRunner;
    this.next = (this.next + 1) % this.nodes.length;
    return node;
  }
}

/** Statements on one node; every failure comes out as a ClickHouseError naming the node. */
export class NodeRunner {
  constructor(
    readonly url: string,
    private readonly client: ClickHouseClient,
  ) {}

  async command(statement: Sql, settings: ClickHouseSettings = {}): Promise<void> {
    await this.translated(() =>
      this.client.command({ query: statement.text, clickhouse_settings: settings }),
    );
  }

  /** Rows of a query; with `timeoutMs`, one whose answer takes longer fails (as unavailable). */
  async query<T>(
    statement: Sql,
    settings: ClickHouseSettings = {},
    { timeoutMs }: { timeoutMs?: number } = {},
  ): Promise<T[]> {
    return this.translated(async () => {
      const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
      try {
        const result = await this.client.query({
          query: statement.text,
          format: "JSONEachRow",
          clickhouse_settings: settings,
          ...(signal ? { abort_signal: signal } : {}),
        });
        return await result.json<T>();
      } catch (error) {
        // The client's own "The user aborted a request." would say nothing of why.
        if (signal?.aborted) throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
        throw error;
      }
    });
  }

  /**
   * Rows as TabSeparated text (tsvValue): ClickHouse 18.16 parsed it in two thirds of the
   * time JSONEachRow took (1.7-2.2 against 2.6-3.4 µs a row, 200,000 events into the
   * 2-shard cluster), and it is a third of the bytes.
   */
  async insert(table: Sql, columns: readonly string[], rows: string, settings: ClickHouseSettings = {}) {
    await this.translated(() =>
      this.client.insert({
        table: table.text,
        columns: columns as [string, ...string[]],
        values: Readable.from([Buffer.from(rows)], { objectMode: false }),
        format: "TabSeparated",
        clickhouse_settings: settings,
      }),
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async translated<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new ClickHouseError(this.url, error);
    }
  }
}

/**
 * A ClickHouse node refused or failed a statement, or did not answer. The message names the
 * node and gives the server's own error, for the log and the command line; API clients are
 * told only that the event store is unavailable.
 */
export class ClickHouseError extends StoreUnavailableError {
  constructor(url: string, cause: unknown) {
    super("event", `ClickHouse at ${url}: ${causeText(cause)}`, { cause });
    this.name = "ClickHouseError";
  }
}

/**
 * The cause in one line: ClickHouse's own message (trimmed: 18.16 ends its messages with a
 * line break); for another server's answer (the client gives its body as the message),
 * what it is, as a URL with the wrong port reaches a web server or a proxy.
 */
function causeText(cause: unknown): string {
  const text = ((cause as Error)?.message ?? String(cause)).trim();
  const notClickHouse = "is this the HTTP port of a ClickHouse server?";
  if (text === "") return `an empty answer, not ClickHouse's: ${notClickHouse}`;
  if (text.startsWith("<")) {
    const heading = /<(title|h1)[^>]*>([^<]*)</i.exec(text)?.[2]?.trim();
    return `a web page${heading ? ` ("${heading}")` : ""}, not ClickHouse's answer: ${notClickHouse}`;
  }
  return text;
}

function databaseOf(raw: string): string {
  const path = new URL(raw).pathname.replace(/^\/+|\/+$/g, "");
  return path === "" ? DEFAULT_DATABASE : decodeURIComponent(path);
}
