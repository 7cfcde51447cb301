// What enters the ingest pipeline: a raw hit (from the tracker or the events API), and the
// typed reasons the pipeline may drop one for (pipeline.ts has what comes out).

export const DROP_REASONS = [
  "unknown_website",
  "bot",
  "excluded_ip",
  "spam",
  "datacenter",
  "invalid",
  "rate_limited",
] as const;
export type DropReason = (typeof DROP_REASONS)[number];
/**
 * The screens of collected hits alone (pipeline.ts): an import is the owner's own history,
 * not screened against today's spam list or data-centre networks.
 */
const COLLECTION_ONLY_REASONS = ["spam", "datacenter"] as const satisfies readonly DropReason[];
export type ImportDropReason = Exclude<DropReason, (typeof COLLECTION_ONLY_REASONS)[number]>;
export function isImportDropReason(reason: DropReason): reason is ImportDropReason {
  return !(COLLECTION_ONLY_REASONS as readonly DropReason[]).includes(reason);
}
/** Why an imported event (POST /api/v1/events) was dropped, as its answer counts them. */
export const IMPORT_DROP_REASONS = DROP_REASONS.filter(isImportDropReason);
/**
 * Why POST /api/event did not record a hit: the pipeline's reasons, and `unavailable` when
 * the event store cannot take writes and the hits kept meanwhile fill the write buffer.
 */
export const COLLECT_DROP_REASONS = [...DROP_REASONS, "unavailable"] as const;
export type CollectDropReason = (typeof COLLECT_DROP_REASONS)[number];
/**
 * The drops counted for the website a hit was for (drop-counter.ts): every reason but
 * `unknown_website`, as a hit for no website, or one whose body cannot be read, is no one's.
 */
export const COUNTED_DROP_REASONS = COLLECT_DROP_REASONS.filter(
  (reason): reason is CountedDropReason => reason !== "unknown_website",
);
export type CountedDropReason = Exclude<CollectDropReason, "unknown_website">;

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
  /** An engagement (the page was looked at until now), not a pageview; a custom event wins. */
  engagement: boolean;
  ip: string;
  userAgent: string;
  acceptLanguage: string;
  ts: Date;
}
