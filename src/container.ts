// Opens the stores, migrates them, and builds the services; owns close(). Everything with
// a socket, a file handle or a timer is created here and nowhere at import time.

import path from "node:path";
import { ApiKeyService } from "./accounts/api-key-service.js";
import { newSetupCode, OwnerSessions } from "./accounts/owner-sessions.js";
import { UserService } from "./accounts/user-service.js";
import { type Clock, systemClock } from "./clock.js";
import { CollectEndpoint } from "./collect/collect-endpoint.js";
import type { Config } from "./config.js";
import { BUILT_RANGES_DIR, loadDatacenterRanges } from "./enrich/datacenter-ranges.js";
import {
  BUILT_INDEX_DIR,
  bundledGeoSources,
  ensureGeoIndex,
  type GeoLookup,
  IndexedGeoLookup,
} from "./enrich/geo.js";
import { ReferrerSpamList } from "./enrich/referrer-spam.js";
import { UserAgentClassifier } from "./enrich/user-agent.js";
import { StoreUnavailableError } from "./errors.js";
import { CollectRateLimiter } from "./ingest/collect-rate-limiter.js";
import { DropCounter } from "./ingest/drop-counter.js";
import { EventImporter } from "./ingest/event-importer.js";
import { ImportThreads } from "./ingest/import-threads.js";
import { type Notice, OutageLog } from "./ingest/outage-log.js";
import { IngestPipeline, type ScreenedHit } from "./ingest/pipeline.js";
import { VisitorHasher } from "./ingest/visitor-hasher.js";
import { WebsiteDirectory } from "./ingest/website-directory.js";
import { WriteBuffer } from "./ingest/write-buffer.js";
import { PageAccess } from "./pages/page-access.js";
import { ReportScheduler } from "./reports/report-scheduler.js";
import { createReportSender } from "./reports/report-sender.js";
import { SmtpMailer } from "./reports/smtp-mailer.js";
import { AttemptLimiter } from "./sign-in/attempt-limiter.js";
import { DroppedHitsService } from "./stats/dropped-hits.js";
import { RealtimeService } from "./stats/realtime.js";
import { StatsService } from "./stats/stats-service.js";
import { TimeSeriesService } from "./stats/time-series.js";
import { TotalsService } from "./stats/totals.js";
import { openMetadataStore, openServerEventStore } from "./storage/open-storage.js";
import type { EventStore, MetadataStore } from "./storage/ports.js";
import { StoreFailureLog } from "./store-failure-log.js";
import type { HashCost } from "./websites/password-hash.js";
import { PasswordHasher } from "./websites/password-hasher.js";
import { WebsiteService } from "./websites/website-service.js";

export interface Container {
  readonly config: Config;
  readonly clock: Clock;
  readonly metadata: MetadataStore;
  readonly events: EventStore;
  readonly users: UserService;
  /** API keys: every request's Bearer key, and the owners' further keys. */
  readonly keys: ApiKeyService;
  readonly websites: WebsiteService;
  readonly pipeline: IngestPipeline;
  readonly buffer: WriteBuffer<ScreenedHit>;
  readonly importer: EventImporter;
  readonly stats: StatsService;
  readonly realtime: RealtimeService;
  readonly series: TimeSeriesService;
  readonly totals: TotalsService;
  readonly dropped: DroppedHitsService;
  readonly collect: CollectEndpoint;
  /** The hits collection drops, counted per website, day and reason (written every few seconds). */
  readonly drops: DropCounter;
  readonly geo: GeoLookup;
  /** Every password hash and check goes through it, a bounded few at a time. */
  readonly passwords: PasswordHasher;
  /** Who may see each website's public stats page. */
  readonly pageAccess: PageAccess;
  /** Owners signed in to the web app, and its first user's setup. */
  readonly owners: OwnerSessions;
  /** The code the web app's setup page asks for, while this server has no user (else null). */
  readonly setupCode: string | null;
  /** Email reports on schedule, when ANALYTICS_SMTP_URL is set; `serve` starts it. */
  readonly reports: ReportScheduler | null;
  /** Told of every request refused because a store cannot answer; logs why, without flooding. */
  readonly storeFailures: StoreFailureLog;
  /** Resolves when every store answers and buffered hits can be written (GET /healthz). */
  checkHealth(): Promise<void>;
  /**
   * Flushes buffered events (retrying for a while if the event store fails: see
   * SHUTDOWN_RETRY_MS), then closes the stores. Rejects with an UnstoredError counting the
   * acknowledged hits it could not store.
   */
  close(): Promise<void>;
}

/**
 * How long a shutdown keeps retrying to store buffered hits while the event store fails
 * (the embedded one keeps being opened again meanwhile: its pauses are at most 5 s).
 * With the 5 s the app may take to close its connections (app.ts), such a stop takes about
 * 10 s at most: within the 10 to 30 s supervisors usually wait before SIGKILL.
 */
export const SHUTDOWN_RETRY_MS = 5_000;

export interface ContainerOptions {
  clock?: Clock;
  /** Told when hits start waiting for the store (the write buffer is full: back-pressure). */
  onBackPressure?: (buffered: number) => void;
  /**
   * Where background work tells what went wrong (an event-store outage, rate-limited: see
   * ingest/outage-log.ts) and what came right again; standard error by default.
   */
  onNotice?: Notice;
  /**
   * The cost of new password hashes (password-hash.ts: PASSWORD_HASH_PARAMS, about 0.45 s of
   * one core each). Servers keep it; the tests' apps take a cheap one: their 275 hashes at
   * the full cost (and as many again on PostgreSQL) made the 26 suites with passwords take
   * 161 s instead of 118 s.
   */
  passwordCost?: HashCost;
}

export async function createContainer(config: Config, options: ContainerOptions = {}): Promise<Container> {
  const clock = options.clock ?? systemClock;
  const notice: Notice =
    options.onNotice ?? ((level, _details, message) => level !== "info" && console.error(message));
  let outages: OutageLog | null = null; // once the buffer exists: it knows its backlog
  const storeFailures = new StoreFailureLog(notice);
  const metadata = openMetadataStore(config);
  let eventStore: EventStore;
  try {
    await metadata.migrate();
    eventStore = await openServerEventStore(config, clock, {
      onFailure: (error, attempts, nextAttemptMs) => outages?.storeFailed(error, attempts, nextAttemptMs),
      onReopened: (attempts) => outages?.storeReopened(attempts),
      // A store that cannot answer (a node down, a full disk) is told once, then once a
      // minute, as the requests it refuses are: the upkeep retries every few seconds.
      onUpkeepError: (error) =>
        error instanceof StoreUnavailableError
          ? storeFailures.refused(error)
          : notice(
              "warn",
              { err: error },
              "the event store's upkeep (after a write, or folding closed days) failed; it is retried",
            ),
    });
  } catch (error) {
    await metadata.close();
    throw error;
  }
  try {
    // The event store learns a zone as it changes (WebsiteService); told again here, a change
    // it missed (a crash in between) is applied now rather than counted from raw events for good.
    for (const { id, timezone } of await metadata.websites.zones()) await eventStore.setZone(id, timezone);
  } catch (error) {
    await eventStore.close();
    await metadata.close();
    throw error;
  }
  // The geolocation index, written on first need if it is not there (a given database's,
  // in the data directory); every thread reads the same file.
  let geoIndex: Promise<string> | null = null;
  const geoIndexFile = () =>
    (geoIndex ??= config.geoipDb
      ? ensureGeoIndex({ ipv4: config.geoipDb, ipv6: config.geoipDb }, path.join(config.dataDir, "geo"))
      : ensureGeoIndex(bundledGeoSources(), BUILT_INDEX_DIR));
  const geo = new IndexedGeoLookup(geoIndexFile, (error) =>
    notice("error", { err: error }, `no geolocation: its index cannot be read or written (${String(error)})`),
  );
  // A refresh that fails leaves the host's last answer in use; an outage is told once.
  const directory = new WebsiteDirectory(metadata.websites, clock, (error) =>
    error instanceof StoreUnavailableError
      ? storeFailures.refused(error)
      : notice("warn", { err: error }, `a website could not be looked up again; retried (${String(error)})`),
  );
  const visitors = new VisitorHasher(metadata.salts, clock);
  const pipeline = new IngestPipeline({
    directory,
    userAgents: new UserAgentClassifier(),
    geo,
    visitors,
    spam: config.referrerSpam ? ReferrerSpamList.fromFile(config.referrerSpam) : ReferrerSpamList.none,
    datacenters: loadDatacenterRanges(BUILT_RANGES_DIR, (error) =>
      notice(
        "error",
        { err: error },
        `no data-centre screening: its ranges cannot be read or written (${String(error)})`,
      ),
    ),
  });
  const importThreads = new ImportThreads(config.importThreads, () => geoIndexFile().catch(() => null));
  const buffer: WriteBuffer<ScreenedHit> = new WriteBuffer<ScreenedHit>(eventStore, {
    onError: (error) => outages?.writeFailed(error, buffer.size),
    onRefused: () => outages?.dropped(),
    onRecovered: () => outages?.recovered(),
    intervalMs: config.flushIntervalMs,
    prepare: (hits) => pipeline.enrich(hits),
    ...(options.onBackPressure ? { onBackPressure: options.onBackPressure } : {}),
  });
  outages = new OutageLog(notice, buffer.maxBacklog);
  const drops = new DropCounter(metadata.drops, {
    // The metadata store's outage is told once (storeFailures), not every 5 seconds.
    onError: (error) =>
      error instanceof StoreUnavailableError
        ? storeFailures.refused(error)
        : notice("warn", { err: error }, `dropped hits could not be counted yet; retried (${String(error)})`),
  });
  const passwords = new PasswordHasher(options.passwordCost);
  const users = new UserService(metadata.users, clock);
  const setupCode = (await metadata.users.any()) ? null : newSetupCode();
  const stats = new StatsService(metadata.websites, eventStore, clock);
  const websites = new WebsiteService(metadata.websites, clock, passwords, {
    changed: (domain) => directory.invalidate(domain),
    zoneChanged: (websiteId, zone) => eventStore.setZone(websiteId, zone),
    deleted: async (websiteId) => {
      buffer.discardWebsite(websiteId);
      await eventStore.deleteWebsite(websiteId);
    },
  });
  const reports = config.smtpUrl
    ? new ReportScheduler(
        createReportSender(config, metadata, eventStore, clock),
        new SmtpMailer(config.smtpUrl),
        config.reportPeriod,
        clock,
      )
    : null;
  return {
    config,
    clock,
    metadata,
    events: eventStore,
    users,
    keys: new ApiKeyService(metadata.users, metadata.apiKeys, clock),
    websites,
    pipeline,
    buffer,
    importer: new EventImporter(metadata.websites, visitors, importThreads, eventStore, clock),
    stats,
    series: new TimeSeriesService(stats),
    totals: new TotalsService(stats),
    dropped: new DroppedHitsService(metadata.websites, metadata.drops, drops),
    realtime: new RealtimeService(metadata.websites, eventStore, buffer, clock),
    collect: new CollectEndpoint(
      pipeline,
      buffer,
      new CollectRateLimiter(config.collectRateLimit, clock),
      clock,
      drops,
      storeFailures,
    ),
    drops,
    geo,
    passwords,
    pageAccess: new PageAccess({
      websites: metadata.websites,
      users: metadata.users,
      secrets: metadata.secrets,
      limiter: new AttemptLimiter(clock),
      passwords,
      clock,
    }),
    owners: new OwnerSessions(
      {
        users: metadata.users,
        sessions: metadata.sessions,
        secrets: metadata.secrets,
        accounts: users,
        passwords,
        // Its own counts: a guesser of stats-page passwords does not lock owners out, nor the reverse.
        limiter: new AttemptLimiter(clock),
        clock,
      },
      setupCode,
    ),
    setupCode,
    reports,
    storeFailures,
    async checkHealth() {
      await Promise.all([metadata.ping(), eventStore.ping()]);
      // The store may answer reads while its writes fail (a commit that finds the disk full).
      if (buffer.failing !== null) throw buffer.failing;
    },
    async close() {
      try {
        await reports?.close();
        await buffer.close(SHUTDOWN_RETRY_MS);
      } finally {
        await drops
          .close()
          .catch((error) =>
            notice(
              "warn",
              { err: error },
              `the last seconds' dropped hits were not counted (${String(error)})`,
            ),
          );
        await importThreads.close();
        await eventStore.close();
        await metadata.close();
      }
    },
  };
}
