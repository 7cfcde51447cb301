// The storage ports: what the domain needs from the metadata store (users, API keys,
// websites, salts, secrets, report log) and from the event store (events, aggregates, statistics). Adapters
// implement these and translate driver errors into the errors below; nothing outside an
// engine's folder knows which engine is behind them.

import type {
  DayCounts,
  DaysQuery,
  RealtimeCounts,
  RealtimeQuery,
  StatsBatch,
  StatsPage,
  StatsQuery,
} from "../stats/stats-query.js";

export interface UserRecord {
  id: number;
  email: string;
  name: string | null;
  isAdmin: boolean;
  /** When an administrator disabled the user (no key or sign-in works then); null: enabled. */
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUser {
  email: string;
  name: string | null;
  isAdmin: boolean;
  apiKeyId: string;
  apiKeyHash: string;
  /** The web app's password as password-hash.ts stores it, or null for none. */
  passwordHash: string | null;
  now: Date;
}

export interface StoredCredential {
  user: UserRecord;
  apiKeyHash: string;
  /** A key that may only read statistics and websites. */
  readOnly: boolean;
}

/** A user's API key as listed: never the key, nor its hash. */
export interface ApiKeyRecord {
  keyId: string;
  /** null for the primary key (the one in users, which `keys rotate` replaces). */
  name: string | null;
  readOnly: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A user's API keys beside the primary one: named, full or read-only, revoked one by one. */
export interface ApiKeyRepository {
  create(key: {
    keyId: string;
    userId: number;
    name: string;
    keyHash: string;
    readOnly: boolean;
    now: Date;
  }): Promise<ApiKeyRecord>;
  /** Every key of the user, the primary one first, then newest first. */
  list(userId: number): Promise<ApiKeyRecord[]>;
  /** The credential of a further key (users.findCredential has the primary ones). */
  findCredential(keyId: string): Promise<StoredCredential | null>;
  /** Deletes one of the user's further keys; false when the user has no such key. */
  delete(userId: number, keyId: string): Promise<boolean>;
  /** Records that the key (primary or further) was used at `now`. */
  markUsed(keyId: string, now: Date): Promise<void>;
}

export interface UserRepository {
  /** Throws DuplicateError("email") when the email is taken. */
  create(user: NewUser): Promise<UserRecord>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findCredential(apiKeyId: string): Promise<StoredCredential | null>;
  /** Replaces the user's key; returns false when no such user. */
  replaceKey(userId: number, apiKeyId: string, apiKeyHash: string, now: Date): Promise<boolean>;
  /** A page of every user, newest first, and how many there are. */
  list(limit: number, offset: number): Promise<{ items: UserRecord[]; total: number }>;
  findById(userId: number): Promise<UserRecord | null>;
  /** Whether any user exists (with none, the web app offers its setup page). */
  any(): Promise<boolean>;
  /** The user of an email with their password's stored hash (null: none set). */
  findPassword(email: string): Promise<{ user: UserRecord; passwordHash: string | null } | null>;
  /**
   * Replaces the user's password (null: removes it) and ends every sign-in of theirs, in one
   * transaction; returns false when no such user.
   */
  replacePassword(userId: number, passwordHash: string | null, now: Date): Promise<boolean>;
  /**
   * Disables the user (`disabledAt`; their sign-ins end, in the same transaction) or enables
   * them again (null); returns false when no such user.
   */
  setDisabled(userId: number, disabledAt: Date | null, now: Date): Promise<boolean>;
}

/** Sign-ins to the web app, each known by the SHA-256 of its cookie's token (owner-sessions.ts). */
export interface SessionRepository {
  create(session: { tokenHash: string; userId: number; createdAt: Date; expiresAt: Date }): Promise<void>;
  /** The user signed in by the token of this hash, while the sign-in has not expired. */
  findUser(tokenHash: string, now: Date): Promise<UserRecord | null>;
  delete(tokenHash: string): Promise<void>;
  /** Deletes the sign-ins expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

export type Privacy = 0 | 1 | 2;
export type Flag = 0 | 1;

export interface WebsiteRecord {
  id: number;
  userId: number;
  domain: string;
  privacy: Privacy;
  passwordHash: string | null;
  /** Times the website left privacy 2 (0 for a new one); password cookies are bound to it. */
  passwordEpoch: number;
  email: Flag;
  excludeBots: Flag;
  /** 1: hits from data-centre networks are dropped (enrich/datacenter-networks.ts). */
  excludeDatacenters: Flag;
  excludeParams: string | null;
  excludeIps: string | null;
  /** IANA time zone of the statistics' days (stats/time-zone.ts). */
  timezone: string;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWebsite = Omit<WebsiteRecord, "id" | "passwordEpoch" | "createdAt" | "updatedAt"> & {
  now: Date;
};

export type WebsitePatch = Partial<
  Pick<
    WebsiteRecord,
    | "privacy"
    | "passwordHash"
    | "email"
    | "excludeBots"
    | "excludeDatacenters"
    | "excludeParams"
    | "excludeIps"
    | "timezone"
  >
> & {
  /** Adds one to passwordEpoch in the same write (the website leaves privacy 2). */
  endPasswordCookies?: boolean;
};

export interface WebsiteListQuery {
  userId: number;
  /** Lowercase (NFC) substring of the domain in its ASCII or Unicode form, matched literally. */
  search: string | null;
  /**
   * `domain`: the stored ASCII form (the API's sort_by=domain); `domain_unicode`: the form
   * people read (the web app's list). Both are lowercase, so either order ignores case.
   */
  sortBy: "id" | "domain" | "domain_unicode";
  sort: "asc" | "desc";
  limit: number;
  offset: number;
}

export interface WebsiteRepository {
  /** Throws DuplicateError("domain") when the domain is taken by any user. */
  create(website: NewWebsite): Promise<WebsiteRecord>;
  /** A website of this user, or null (also when it belongs to someone else). */
  find(userId: number, id: number): Promise<WebsiteRecord | null>;
  findByDomain(domain: string): Promise<WebsiteRecord | null>;
  /** The website with this id, whoever owns it (for operators' commands), or null. */
  findById(id: number): Promise<WebsiteRecord | null>;
  update(userId: number, id: number, patch: WebsitePatch, now: Date): Promise<WebsiteRecord | null>;
  delete(userId: number, id: number): Promise<boolean>;
  list(query: WebsiteListQuery): Promise<{ items: WebsiteRecord[]; total: number }>;
  /** Every website's time zone (the event store is told them when a server starts). */
  zones(): Promise<{ id: number; timezone: string }[]>;
}

/** A day's salt as asked for: stored if the day has none, and kept at least until `keepUntil`. */
export interface WantedSalt {
  /** YYYY-MM-DD (UTC). */
  day: string;
  candidate: string;
  keepUntil: Date;
}

/** Daily visitor-hash salts, shared by every server through the metadata store. */
export interface SaltRepository {
  /** The wanted days' salts, by day, the same for every caller; no day's keep-until moves earlier. */
  getOrCreate(wanted: readonly WantedSalt[], now: Date): Promise<Map<string, string>>;
  /** Deletes the salts kept until `now` or earlier; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** Named server secrets (the key that signs stats-page cookies), shared by every server. */
export interface SecretRepository {
  /** The secret called `name`; stores `candidate` if there is none yet. Every caller gets the same value. */
  getOrCreate(name: string, candidate: string, now: Date): Promise<string>;
}

/** A user whose report covers these websites (those with `email = 1`). */
export interface ReportRecipient {
  user: { id: number; email: string; name: string | null };
  websites: { id: number; domain: string }[];
}

export type ReportStatus = "claimed" | "sent" | "failed";

export interface ReportLogEntry {
  userId: number;
  periodKey: string;
  status: ReportStatus;
  attempts: number;
  lastError: string | null;
  claimedAt: Date;
  sentAt: Date | null;
}

/**
 * The email-report log, shared by every server through the metadata store. A sender claims
 * (user, period) before sending; the claim is atomic, so of several servers (or a server
 * and the CLI) exactly one sends.
 */
export interface ReportRepository {
  /** Users with at least one website with `email = 1`, in id order, with those websites. */
  recipients(): Promise<ReportRecipient[]>;
  /** Ids of the users whose report of the period was sent. */
  sentUsers(periodKey: string): Promise<Set<number>>;
  /**
   * Claims the user's report of the period: succeeds when no one has, when the last attempt
   * failed, or when a claim is older than `staleBefore` (its sender died). Returns a token
   * for markSent/markFailed, or null when another sender holds it or it was sent.
   */
  claim(userId: number, periodKey: string, now: Date, staleBefore: Date): Promise<string | null>;
  markSent(userId: number, periodKey: string, token: string, now: Date): Promise<void>;
  markFailed(userId: number, periodKey: string, token: string, error: string): Promise<void>;
  find(userId: number, periodKey: string): Promise<ReportLogEntry | null>;
}

/** Hits dropped for a website on one of its local days (YYYY-MM-DD), for one reason. */
export interface DropCount {
  websiteId: number;
  day: string;
  reason: string;
  count: number;
}

/**
 * Counts of dropped hits, shared by every server through the metadata store: each server
 * adds its own, so the counts are the sums of all of theirs.
 */
export interface DropRepository {
  /** Adds each count to the stored one of its website, day and reason (of a website that still exists). */
  add(counts: readonly DropCount[]): Promise<void>;
  /** The website's counts of the days from `from` to `to` inclusive, by day then reason. */
  read(websiteId: number, from: string, to: string): Promise<DropCount[]>;
}

export interface MetadataStore {
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly websites: WebsiteRepository;
  readonly salts: SaltRepository;
  readonly secrets: SecretRepository;
  readonly reports: ReportRepository;
  readonly drops: DropRepository;
  /** Creates or upgrades the schema to the latest version. */
  migrate(): Promise<void>;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  /** Every row of a table, a batch at a time, in primary-key order (to copy the store). */
  exportRows(table: MetadataTable): AsyncIterable<MetadataRow[]>;
  /**
   * Fills this store, which must hold no row at all (else MetadataNotEmptyError and nothing
   * is written), with every table's rows as `read` gives them, ids kept, in one transaction;
   * id generators then continue after the highest copied id. Returns the rows per table.
   */
  importRows(
    read: (table: MetadataTable) => AsyncIterable<MetadataRow[]>,
    onTable?: (table: MetadataTable, rows: number) => void,
  ): Promise<Record<MetadataTable, number>>;
  close(): Promise<void>;
}

/** The metadata tables, each after the tables its rows refer to: the order a copy writes them in. */
export const METADATA_TABLES = [
  "users",
  "websites",
  "visitor_salts",
  "server_secrets",
  "report_log",
  "user_sessions",
  "api_keys",
  "dropped_hits",
] as const;
export type MetadataTable = (typeof METADATA_TABLES)[number];

/** A metadata row as every engine takes it back: integers as numbers, timestamps as ISO-8601 text. */
export type MetadataRow = Record<string, string | number | null>;

/** importRows found rows in the store it was to fill; `rows` counts them per table. */
export class MetadataNotEmptyError extends Error {
  constructor(readonly rows: Partial<Record<MetadataTable, number>>) {
    super("The metadata store is not empty.");
    this.name = "MetadataNotEmptyError";
  }
}

/** A unique constraint refused a write; `field` names the column the caller can report. */
export class DuplicateError extends Error {
  constructor(readonly field: "email" | "domain") {
    super(`duplicate ${field}`);
    this.name = "DuplicateError";
  }
}

/**
 * The engine failed for good: this instance of the store can no longer be used and must be
 * opened again (EventEngine.reopen), e.g. after a write that found the disk full left its
 * files needing recovery. The call that reports it stored nothing.
 */
export class EventStoreFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EventStoreFailedError";
  }
}

/**
 * A pageview, a custom event, or an engagement: the tracker's word that a page was being
 * looked at until then (sent when it is hidden or left), which ends a visit later than its
 * last pageview. An engagement counts in no statistic but the visits'.
 */
export type EventKind = "pageview" | "event" | "engagement";

/** Every kind, in the order the stores number them (0 pageview, 1 event, 2 engagement). */
export const EVENT_KINDS: readonly EventKind[] = ["pageview", "event", "engagement"];
/** Each kind's number in the stores, its place in EVENT_KINDS. */
export const EVENT_KIND_CODES = Object.fromEntries(EVENT_KINDS.map((kind, code) => [kind, code])) as Readonly<
  Record<EventKind, number>
>;

/**
 * One stored pageview or custom event, enriched at ingest. Holds no raw IP address or user
 * agent: the visitor is a keyed hash whose key (the day's salt) is deleted after 48 hours.
 * Text fields are in the statistics' value forms ("" when unknown).
 */
export interface StoredEvent {
  /** A website id of the metadata store: a positive integer below 2^31. */
  websiteId: number;
  /** Stored to the second (the milliseconds dropped); its UTC day and hour are the statistics'. */
  ts: Date;
  /**
   * A 64-bit unsigned visitor id, salted per local day of the website's zone: unique visitors
   * are distinct (local day, visitor) pairs.
   */
  visitor: bigint;
  kind: EventKind;
  /** A pageview whose referrer is not the website itself: the start of a visit. */
  isVisit: boolean;
  page: string;
  referrer: string;
  campaign: string;
  browser: string;
  os: string;
  device: string;
  resolution: string;
  language: string;
  country: string;
  city: string;
  continent: string;
  /** `name:value:unit` for custom events, "" for pageviews. */
  event: string;
}

/** The text fields of a StoredEvent, in the one order the stores and the export use. */
export const EVENT_TEXT_FIELDS = [
  "page",
  "referrer",
  "campaign",
  "browser",
  "os",
  "device",
  "resolution",
  "language",
  "country",
  "city",
  "continent",
  "event",
] as const satisfies readonly (keyof StoredEvent)[];

/** Which events to export: one website or all, and a range of UTC days, YYYY-MM-DD (inclusive). */
export interface ExportOptions {
  websiteId?: number;
  from?: string;
  to?: string;
}

/**
 * A batch of events as columns (what EventStore.insert takes; event-columns.ts builds and
 * reads them): numbers in typed arrays, whose buffers move between threads without a copy,
 * and each text field as its distinct values plus one code per event.
 */
export interface EventColumns {
  count: number;
  websiteIds: Int32Array<ArrayBuffer>;
  /** Milliseconds since the epoch. */
  times: Float64Array<ArrayBuffer>;
  visitors: BigUint64Array<ArrayBuffer>;
  /** Bit 0: a custom event, bit 2: an engagement (neither: a pageview); bit 1: the start of a visit. */
  flags: Uint8Array<ArrayBuffer>;
  /** Per text field, in EVENT_TEXT_FIELDS order. */
  texts: { values: string[]; codes: Uint32Array<ArrayBuffer> }[];
}

/**
 * The events and their statistics, as every engine must provide them (one folder per engine
 * under storage/, opened through its EventEngine; test/event-store-contract.test.ts checks
 * every engine against this). Calls may overlap: an engine orders its writes itself.
 */
export interface EventStore {
  /** Creates or upgrades the engine's schema; running it again changes nothing. */
  migrate(): Promise<void>;
  /**
   * Stores the events and updates everything the statistics are read from, atomically: a
   * call that rejects stored none of its events (and the store goes on as before it). When
   * it resolves the events are committed (neither a crash of this process nor a restart of
   * the engine loses them) and every later call sees them, from any process on the same
   * store. An empty batch stores nothing. The batch comes as columns (event-columns.ts:
   * `columnsOf` makes them of StoredEvents), as an import thread hands them over: a batch
   * of 10,000 events as objects was the main thread's garbage.
   */
  insert(batch: EventColumns): Promise<void>;
  /**
   * Answers a statistic exactly as the catalog defines it (stats/catalog.ts), over the days
   * from `from` to `to` inclusive of the query's time zone (its local days and hours, from
   * the offsets stats/time-zone.ts gives): every count exact, never sampled or estimated;
   * unique visitors counted as distinct (local day, visitor) pairs; the values whose lowercase form
   * contains `search` literally (no wildcards); sorted by `sortBy`, equal counts by value
   * ascending (values compare as their bytes); `limit` rows from `offset`; `total` the
   * number of matching values over all pages. A website without events has no rows.
   */
  queryStat(query: StatsQuery): Promise<StatsPage>;
  /**
   * Several statistics of days (catalog dimension "day") over one window and one set of
   * filters, for each exactly the days and counts queryStat lists: what totals and time
   * series read, which an engine may count together (`daysOneByOne` in stats-query.ts asks
   * queryStat for each, for an engine with nothing to share).
   */
  queryDays(query: DaysQuery): Promise<DayCounts>;
  /**
   * Several statistics over one window and one set of filters, for each exactly what
   * queryStat answers, in order: what a dashboard's lists read, which an engine may count
   * together (an engine with nothing to share asks queryStat for each of `batchQueries`).
   */
  queryStats(batch: StatsBatch): Promise<StatsPage[]>;
  /**
   * Counts for realtime (stats/realtime.ts): the distinct (UTC day, visitor) pairs with a
   * pageview from `visitorsFrom` to `until`, and the pageviews of each UTC minute from
   * `minutesFrom` to `until` that has any (instants in ms, both ends included).
   */
  queryRealtime(query: RealtimeQuery): Promise<RealtimeCounts>;
  /**
   * The time zone whose local days the website's later writes and aggregates count in (IANA
   * name; UTC until set). A change counts the website's stored days again in the new zone:
   * queries stay exact meanwhile (a query names its zone, and days not counted in it are
   * counted from raw events), only slower until it is done.
   */
  setZone(websiteId: number, zone: string): Promise<void>;
  /**
   * Recomputes what the statistics are read from, from the stored events, of one website or
   * of all. Every answer afterwards is the same as before: the stored events alone define them.
   */
  rebuildAggregates(websiteId?: number): Promise<void>;
  /**
   * Deletes a website's events and everything counted from them. When it resolves no call
   * sees any of it (statistics, counts, lists, exports); other websites are untouched.
   */
  deleteWebsite(websiteId: number): Promise<void>;
  /** The number of stored events, of one website or of all. */
  countEvents(websiteId?: number): Promise<number>;
  /**
   * Streams the stored events (of one website or all, within UTC days `from` to `to`
   * inclusive) in non-empty batches, by website then time, never all in memory (for
   * `analytics export`). Each event is as inserted except its visitor, an opaque id,
   * distinct per (website, UTC day) as the stored one was: the same stored visitor on the
   * same day gives the same id, different ones different ids. So inserting the export into
   * an empty store of any engine gives every statistic the same answer.
   */
  exportEvents(options?: ExportOptions): AsyncIterable<StoredEvent[]>;
  /** Resolves when the store answers a trivial query (and, for several servers, each does). */
  ping(): Promise<void>;
  /** Waits for the writes under way, then releases the store; no call may follow. */
  close(): Promise<void>;
}
