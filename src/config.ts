// The only reader of process.env. Every setting is declared once in SETTINGS (variable
// name, default, parser, description); flags win over the environment; the result is
// validated and frozen, and a bad value fails fast with a message naming the variable.

import fs from "node:fs";
import { isIP } from "node:net";
import path from "node:path";

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly trustProxy: TrustProxy;
  readonly publicUrl: string | null;
  readonly apiRateLimit: number;
  readonly collectRateLimit: number;
  readonly maxConnectionsPerClient: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly geoipDb: string | null;
  readonly referrerSpam: string | null;
  readonly clickhouseUrl: readonly string[] | null;
  readonly clickhouseCluster: string | null;
  readonly flushIntervalMs: number;
  readonly helperNiceness: number;
  readonly importThreads: number;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly reportPeriod: ReportPeriodKind;
  readonly logLevel: string;
}

export type ReportPeriodKind = "week" | "month";

/**
 * Which proxies in front of the server are believed about the client (X-Forwarded-For,
 * -Proto, -Host): none, the nearest `hops` of them, or those at these addresses/CIDR blocks.
 */
export type TrustProxy =
  | { readonly kind: "none" }
  | { readonly kind: "hops"; readonly hops: number }
  | { readonly kind: "addresses"; readonly addresses: readonly string[] };

type Parser<T> = (raw: string) => T;

interface Setting<T> {
  readonly env: string;
  readonly flag?: string;
  readonly default: string;
  readonly parse: Parser<T>;
  readonly description: string;
  /** May hold credentials: a bad value is reported without echoing it. */
  readonly secret?: boolean;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

const integerIn =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new Error(`must be an integer from ${min} to ${max}`);
    }
    return Number(raw);
  };

/** The usual private ranges by name, as Express and Fastify spell them. */
const PROXY_RANGES: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};
const MAX_PROXY_HOPS = 16;

/** `0`/`1`, a number of proxies, or their addresses and CIDR blocks, comma-separated. */
const trustProxy: Parser<TrustProxy> = (raw) => {
  const value = raw.trim().toLowerCase();
  if (["0", "false", "no", "off", ""].includes(value)) return { kind: "none" };
  if (["true", "yes", "on"].includes(value)) return { kind: "hops", hops: 1 };
  if (/^\d+$/.test(value)) {
    if (Number(value) === 0) return { kind: "none" };
    if (Number(value) > MAX_PROXY_HOPS) throw new Error(`must be at most ${MAX_PROXY_HOPS} proxies`);
    return { kind: "hops", hops: Number(value) };
  }
  const addresses = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .flatMap((entry) => {
      const named = PROXY_RANGES[entry];
      if (named) return named;
      const [address = "", prefix, ...rest] = entry.split("/");
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      if (family === 0 || rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
        throw new Error(
          `must be 0, a number of proxies, or their IP addresses or CIDR blocks (or loopback, linklocal, uniquelocal); ${JSON.stringify(entry)} is none of them`,
        );
      }
      if (prefix !== undefined && Number(prefix) > bits)
        throw new Error(`${entry}: a prefix is at most ${bits}`);
      return [entry];
    });
  return { kind: "addresses", addresses: Object.freeze(addresses) };
};

const text: Parser<string> = (raw) => {
  if (raw.trim() === "") throw new Error("must not be empty");
  return raw.trim();
};

const optionalUrl: Parser<string | null> = (raw) => {
  if (raw.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error("must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("must be an http(s) URL");
  // Links append their paths to it, which would land in a query or fragment. A parsed
  // URL's ? and # are always those (elsewhere they are escaped), an empty one included.
  if (/[?#]/.test(url.href)) throw new Error("must not carry a query string or fragment");
  return url.toString().replace(/\/+$/, "");
};

const optionalPostgresUrl: Parser<string | null> = (raw) => {
  if (raw.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error("must be a postgres://user:password@host:port/database URL");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error("must be a postgres:// or postgresql:// URL");
  }
  return raw.trim();
};

/**
 * A file the server reads (at start or on first need): a directory or an unreadable file is
 * refused here, as the variable's problem, rather than failing later with a stack trace.
 */
const optionalFile: Parser<string | null> = (raw) => {
  if (raw.trim() === "") return null;
  const file = path.resolve(raw.trim());
  if (!fs.existsSync(file)) throw new Error("names no file");
  if (fs.statSync(file).isDirectory()) throw new Error("names a directory, not a file");
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    throw new Error("names a file this user cannot read");
  }
  return file;
};

/** Where an .mmdb file's metadata begins: in its last 128 KiB, by the format's definition. */
const MMDB_METADATA_MARKER = Buffer.from("\xab\xcd\xefMaxMind.com", "latin1");
const MMDB_METADATA_SPAN = 128 * 1024;

/**
 * An .mmdb database: the server reads it only on the first hit that needs a place, so a file
 * that is not one is found here (by its metadata marker, without reading the whole file)
 * rather than by every hit being stored without a place.
 */
const optionalMmdb: Parser<string | null> = (raw) => {
  const file = optionalFile(raw);
  if (file === null) return null;
  const descriptor = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(descriptor).size;
    const tail = Buffer.alloc(Math.min(size, MMDB_METADATA_SPAN));
    fs.readSync(descriptor, tail, 0, tail.length, size - tail.length);
    if (!tail.includes(MMDB_METADATA_MARKER)) {
      // A download left compressed is the usual mistake: say so.
      const head = Buffer.alloc(2);
      fs.readSync(descriptor, head, 0, 2, 0);
      if (head[0] === 0x1f && head[1] === 0x8b)
        throw new Error("is gzip-compressed: give the .mmdb file it holds");
      throw new Error("is not a MaxMind .mmdb database (it has no metadata section)");
    }
  } finally {
    fs.closeSync(descriptor);
  }
  return file;
};

const optionalSmtpUrl: Parser<string | null> = (raw) => {
  if (raw.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error("must be an smtp:// or smtps:// URL");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:")
    throw new Error("must be an smtp:// or smtps:// URL");
  if (url.hostname === "") throw new Error("must name the SMTP server's host");
  return raw.trim();
};

/** `Name <address@host>` or a bare `address@host`, as a From header takes it. */
const mailbox: Parser<string> = (raw) => {
  const value = raw.trim();
  if (!/^([^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(value)) {
    throw new Error("must be an address like `Analytics <analytics@example.org>`");
  }
  return value;
};

/** Comma-separated http(s) URLs of ClickHouse nodes; a path names the database, the same on every one. */
const clickhouseUrls: Parser<readonly string[] | null> = (raw) => {
  if (raw.trim() === "") return null;
  const urls = raw.split(",").map((entry) => {
    let url: URL;
    try {
      url = new URL(entry.trim());
    } catch {
      throw new Error(`${JSON.stringify(entry.trim())} is not an absolute http(s) URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("must be http(s) URLs");
    if (url.search !== "" || url.hash !== "") throw new Error("must not carry a query or fragment");
    if (!/^\/?([A-Za-z_][A-Za-z0-9_]*\/?)?$/.test(url.pathname)) {
      throw new Error("a URL's path, if any, must be a database name (letters, digits, _)");
    }
    return url.toString().replace(/\/+$/, "");
  });
  if (new Set(urls.map((url) => new URL(url).pathname.replace(/\/+$/, ""))).size > 1) {
    throw new Error("every URL must name the same database");
  }
  // A node listed twice would run every per-node statement (folds, deletes) twice.
  const hosts = urls.map((url) => new URL(url).host);
  const twice = hosts.find((host, i) => hosts.indexOf(host) !== i);
  if (twice !== undefined) throw new Error(`lists ${twice} twice`);
  return Object.freeze(urls);
};

const optionalIdentifier: Parser<string | null> = (raw) => {
  if (raw.trim() === "") return null;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.trim()))
    throw new Error("must be a name of letters, digits and _");
  return raw.trim();
};

const oneOf =
  (values: string[]): Parser<string> =>
  (raw) => {
    if (!values.includes(raw)) throw new Error(`must be one of: ${values.join(", ")}`);
    return raw;
  };

/** The single declaration of every setting; the README's configuration table mirrors it (a test checks). */
export const SETTINGS: { readonly [K in keyof Config]: Setting<Config[K]> } = {
  host: {
    env: "ANALYTICS_HOST",
    flag: "host",
    default: "127.0.0.1",
    parse: text,
    description: "Address the server listens on (`0.0.0.0` for every interface).",
  },
  port: {
    env: "ANALYTICS_PORT",
    flag: "port",
    default: "8000",
    parse: integerIn(0, 65535),
    description: "TCP port the server listens on (`0` picks a free one).",
  },
  dataDir: {
    env: "ANALYTICS_DATA_DIR",
    flag: "data-dir",
    default: "./data",
    parse: (raw) => path.resolve(text(raw)),
    description: "Directory of the embedded storage (created if missing).",
  },
  databaseUrl: {
    env: "ANALYTICS_DATABASE_URL",
    default: "",
    parse: optionalPostgresUrl,
    description:
      "`postgres://user:password@host:port/database`: keep the metadata (users, keys, websites, visitor salts) in PostgreSQL, shared by any number of servers. Unset: SQLite in the data directory.",
  },
  trustProxy: {
    env: "ANALYTICS_TRUST_PROXY",
    default: "0",
    parse: trustProxy,
    description:
      "Behind reverse proxies: `1` (or the number of proxies in a chain), or the proxies' addresses and CIDR blocks (`10.0.0.0/8,::1`; `loopback`, `linklocal`, `uniquelocal`). The client address is then the right-most `X-Forwarded-For` entry not added by a trusted proxy (an entry that is not an IP address: the connection's address). `0`: the connection's address.",
  },
  publicUrl: {
    env: "ANALYTICS_PUBLIC_URL",
    default: "",
    parse: optionalUrl,
    description:
      "Public base URL used in links (pagination, emails): scheme, host and an optional path, no query string or fragment; by default each request's scheme and Host when the Host is a host name or an IP address with an optional port (any other Host: the address and port the request reached), and in emails `http://HOST:PORT`.",
  },
  apiRateLimit: {
    env: "ANALYTICS_API_RATE_LIMIT",
    default: "600",
    parse: integerIn(1, 1_000_000),
    description: "Requests per minute allowed per API key on `/api/v1`.",
  },
  collectRateLimit: {
    env: "ANALYTICS_COLLECT_RATE_LIMIT",
    default: "1200",
    parse: integerIn(1, 100_000_000),
    description:
      "Hits per minute accepted per client IP on `/api/event`; over it a hit is dropped as `rate_limited`.",
  },
  maxConnectionsPerClient: {
    env: "ANALYTICS_MAX_CONNECTIONS_PER_CLIENT",
    default: "256",
    parse: integerIn(0, 1_000_000),
    description:
      "Open connections allowed from one client address; a new one beyond it is closed at once. `0`: no limit. Behind a reverse proxy every connection comes from the proxy: allow it at least as many as it opens.",
  },
  headersTimeoutMs: {
    env: "ANALYTICS_HEADERS_TIMEOUT_MS",
    default: "20000",
    parse: integerIn(100, 3_600_000),
    description:
      "Milliseconds a client has to send a request's headers (counted from its first byte, or from the connection's start); then the connection is closed.",
  },
  requestTimeoutMs: {
    env: "ANALYTICS_REQUEST_TIMEOUT_MS",
    default: "300000",
    parse: integerIn(100, 3_600_000),
    description:
      "Milliseconds a client has to send a whole request, body included (a 32 MiB import at 1 Mbit/s takes about 270 s); at least `ANALYTICS_HEADERS_TIMEOUT_MS`.",
  },
  geoipDb: {
    env: "ANALYTICS_GEOIP_DB",
    default: "",
    parse: optionalMmdb,
    description:
      "Path of a MaxMind GeoIP2/GeoLite2 City `.mmdb` to use instead of the bundled DB-IP City Lite data (a file that is not one, compressed ones included, stops the server at start). On first need the server writes its index into `<data dir>/geo` (about 10 s, in a thread of its own; hits wait for it), and again when the file changes.",
  },
  referrerSpam: {
    env: "ANALYTICS_REFERRER_SPAM",
    default: "",
    parse: optionalFile,
    description:
      "Path of a file of referrer spammers' hosts, one a line (`#` starts a comment): a collected hit whose referrer is such a host, or a subdomain of one, is dropped as `spam` for every website. Read at start.",
  },
  clickhouseUrl: {
    env: "ANALYTICS_CLICKHOUSE_URL",
    default: "",
    parse: clickhouseUrls,
    description:
      "Events in ClickHouse instead of the embedded store: the HTTP URL of the server, or the comma-separated URLs of every node of a cluster, each once (`migrate` creates the tables on each; it, `serve` and the commands that read or write events refuse a list that leaves out a node of `ANALYTICS_CLICKHOUSE_CLUSTER` or names one twice). A path names the database (default `analytics`); `user:password@` gives credentials.",
  },
  clickhouseCluster: {
    env: "ANALYTICS_CLICKHOUSE_CLUSTER",
    default: "",
    parse: optionalIdentifier,
    description:
      "The cluster's name in the ClickHouse servers' `remote_servers`: local tables on every shard behind Distributed tables. Required when `ANALYTICS_CLICKHOUSE_URL` lists several nodes.",
  },
  flushIntervalMs: {
    env: "ANALYTICS_FLUSH_INTERVAL_MS",
    default: "1000",
    parse: integerIn(10, 3_600_000),
    description:
      "How often buffered hits of `/api/event` are written to the event store, in milliseconds (also when 4,000 are waiting, and on shutdown).",
  },
  helperNiceness: {
    env: "ANALYTICS_HELPER_NICENESS",
    default: "10",
    parse: integerIn(0, 19),
    description:
      "Linux: niceness added to every thread of `serve` but the one answering requests (the event store's writes, the runtime's garbage collection), so hits are answered first when cores are busy; `0` leaves them alone.",
  },
  importThreads: {
    env: "ANALYTICS_IMPORT_THREADS",
    default: "1",
    parse: integerIn(1, 16),
    description:
      "Threads that read, check and enrich the bodies of `POST /api/v1/events` beside the one answering requests (started on the first import); more let concurrent imports use more cores.",
  },
  smtpUrl: {
    env: "ANALYTICS_SMTP_URL",
    default: "",
    parse: optionalSmtpUrl,
    secret: true,
    description:
      "SMTP server for email reports, e.g. `smtps://user:pass@mail.example.org:465`; when set, `serve` sends them on schedule.",
  },
  mailFrom: {
    env: "ANALYTICS_MAIL_FROM",
    default: "Analytics <analytics@localhost>",
    parse: mailbox,
    description: "Sender (From) of email reports.",
  },
  reportPeriod: {
    env: "ANALYTICS_REPORT_PERIOD",
    default: "week",
    parse: oneOf(["week", "month"]) as Parser<ReportPeriodKind>,
    description:
      "`week`: email reports every Monday 06:00 UTC for the previous Monday-Sunday; `month`: on the 1st at 06:00 UTC for the previous month.",
  },
  logLevel: {
    env: "ANALYTICS_LOG_LEVEL",
    default: "info",
    parse: oneOf(LOG_LEVELS),
    description: `Log level: ${LOG_LEVELS.join(", ")}.`,
  },
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Builds the configuration from flags (already parsed by the CLI, keyed by flag name) over
 * environment variables over defaults.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  flags: Record<string, string | undefined> = {},
): Config {
  const result: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, setting] of Object.entries(SETTINGS) as [keyof Config, Setting<unknown>][]) {
    const fromFlag = setting.flag === undefined ? undefined : flags[setting.flag];
    const source = fromFlag !== undefined ? `--${setting.flag}` : setting.env;
    const raw = fromFlag ?? env[setting.env] ?? setting.default;
    try {
      result[key] = setting.parse(raw);
    } catch (error) {
      const shown = setting.secret ? source : `${source}=${JSON.stringify(raw)}`;
      problems.push(`${shown}: ${(error as Error).message}`);
    }
  }
  if (problems.length === 0 && (result.headersTimeoutMs as number) > (result.requestTimeoutMs as number)) {
    problems.push(
      `${SETTINGS.requestTimeoutMs.env}: must be at least ${SETTINGS.headersTimeoutMs.env} (${String(result.headersTimeoutMs)})`,
    );
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  return Object.freeze(result as unknown as Config);
}
