// What enters the ingest pipeline and what comes out: a raw hit (from the tracker or the
// events API), and either an enriched StoredEvent or a typed reason for dropping it.

import type { StoredEvent } from "../storage/ports.js";

export const DROP_REASONS = ["unknown_website", "bot", "excluded_ip", "invalid", "rate_limited"] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface HitEvent {
  name: string;
  value?: string | number | undefined;
  unit?: string | undefined;
}

export interface Hit {
  page: string;
  referrer: string;
  screenResolution: string;
  /** Present for a custom event; absent for a pageview. */
  event: HitEvent | null;
  ip: string;
  userAgent: string;
  acceptLanguage: string;
  ts: Date;
}

export type IngestOutcome = { kept: true; event: StoredEvent } | { kept: false; reason: DropReason };

export const drop = (reason: DropReason): IngestOutcome => ({ kept: false, reason });
