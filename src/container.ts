// Opens the stores, migrates them, and builds the services; owns close(). Everything with
// a socket, a file handle or a timer is created here and nowhere at import time.

import { UserService } from "./accounts/user-service.js";
import { type Clock, systemClock } from "./clock.js";
import { CollectEndpoint } from "./collect/collect-endpoint.js";
import type { Config } from "./config.js";
import { bundledGeoDatabases, type GeoLookup, MmdbGeoLookup } from "./enrich/geo.js";
import { UserAgentClassifier } from "./enrich/user-agent.js";
import { CollectRateLimiter } from "./ingest/collect-rate-limiter.js";
import { EventImporter } from "./ingest/event-importer.js";
import { ImportThreads } from "./ingest/import-threads.js";
import { IngestPipeline, type ScreenedHit } from "./ingest/pipeline.js";
import { VisitorHasher } from "./ingest/visitor-hasher.js";
import { WebsiteDirectory } from "./ingest/website-directory.js";
import { WriteBuffer } from "./ingest/write-buffer.js";
import { PageAccess } from "./pages/page-access.js";
import { ReportScheduler } from "./reports/report-scheduler.js";
import { createReportSender } from "./reports/report-sender.js";
import { SmtpMailer } from "./reports/smtp-mailer.js";
import { AttemptLimiter } from "./sign-in/attempt-limiter.js";
import { StatsService } from "./stats/stats-service.js";
import { openEventStore, openMetadataStore } from "./storage/open-storage.js";
import type { EventStore, MetadataStore } from "./storage/ports.js";
import { PasswordHasher } from "./websites/password-hasher.js";
import { WebsiteService } from "./websites/website-service.js";

export interface Container {
  readonly config: Config;
  readonly clock: Clock;
  readonly metadata: MetadataStore;
  readonly events: EventStore;
  readonly users: UserService;
  readonly websites: WebsiteService;
  readonly pipeline: IngestPipeline;
  readonly buffer: WriteBuffer<ScreenedHit>;
  readonly importer: EventImporter;
  readonly stats: StatsService;
  readonly collect: CollectEndpoint;
  readonly geo: GeoLookup;
  /** Every password hash and check goes through it, a bounded few at a time. */
  readonly passwords: PasswordHasher;
  /** Who may see each website's public stats page. */
  readonly pageAccess: PageAccess;
  /** Email reports on schedule, when ANALYTICS_SMTP_URL is set; `serve` starts it. */
  readonly reports: ReportScheduler | null;
  /** Flushes buffered events, then closes the stores. */
  close(): Promise<void>;
}

export interface ContainerOptions {
  clock?: Clock;
  /** Where background failures (a buffer flush) are reported. */
  onBackgroundError?: (error: unknown) => void;
  /** Told when hits start waiting for the store (the write buffer is full: back-pressure). */
  onBackPressure?: (buffered: number) => void;
}

export async function createContainer(config: Config, options: ContainerOptions = {}): Promise<Container> {
  const clock = options.clock ?? systemClock;
  const onError = options.onBackgroundError ?? ((error: unknown) => console.error(error));
  const metadata = openMetadataStore(config);
  let events: EventStore | null = null;
  try {
    await metadata.migrate();
    events = await openEventStore(config, clock);
    await events.migrate();
  } catch (error) {
    await events?.close();
    await metadata.close();
    throw error;
  }
  const eventStore = events;
  const geoFiles = config.geoipDb ? { ipv4: config.geoipDb, ipv6: config.geoipDb } : bundledGeoDatabases();
  const geo = new MmdbGeoLookup(geoFiles);
  const directory = new WebsiteDirectory(metadata.websites, clock);
  const visitors = new VisitorHasher(metadata.salts, clock);
  const pipeline = new IngestPipeline({ directory, userAgents: new UserAgentClassifier(), geo, visitors });
  const importThreads = new ImportThreads(config.importThreads, {
    files: geoFiles,
    databases: () => geo.databases(),
  });
  const buffer = new WriteBuffer<ScreenedHit>(eventStore, {
    onError,
    intervalMs: config.flushIntervalMs,
    prepare: (hits) => pipeline.enrich(hits),
    ...(options.onBackPressure ? { onBackPressure: options.onBackPressure } : {}),
  });
  const passwords = new PasswordHasher();
  const websites = new WebsiteService(metadata.websites, clock, passwords, {
    changed: (domain) => directory.invalidate(domain),
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
    users: new UserService(metadata.users, clock),
    websites,
    pipeline,
    buffer,
    importer: new EventImporter(metadata.websites, visitors, importThreads, eventStore, clock),
    stats: new StatsService(metadata.websites, eventStore),
    collect: new CollectEndpoint(
      pipeline,
      buffer,
      new CollectRateLimiter(config.collectRateLimit, clock),
      clock,
    ),
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
    reports,
    async close() {
      try {
        await reports?.close();
        await buffer.close();
      } finally {
        await importThreads.close();
        await eventStore.close();
        await metadata.close();
      }
    },
  };
}
