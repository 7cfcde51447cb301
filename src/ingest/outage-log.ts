// Says in the log why hits are not being stored, without flooding it: the first failed
// write of an outage and the event store's failure (with their cause), then at most one
// line a minute while it lasts (hits kept, hits dropped, attempts to open the store
// again), and its end. A write is retried every second and an opening every few seconds:
// one line each would be 60 or more a minute of the same cause.

export type NoticeLevel = "info" | "warn" | "error";
export type Notice = (level: NoticeLevel, details: Record<string, unknown>, message: string) => void;

/** At most one line a minute while an outage lasts. */
const REPEAT_MS = 60_000;

export class OutageLog {
  /** When writes started failing (ms), or null while they succeed. */
  private since: number | null = null;
  private lastLine = Number.NEGATIVE_INFINITY;
  private refused = 0;
  private lastReopenLine = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly notice: Notice,
    /** The items the buffer keeps at most while writes fail. */
    private readonly backlog: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A buffered write failed; `kept` items wait in memory. */
  writeFailed(error: unknown, kept: number): void {
    const now = this.now();
    if (this.since === null) {
      this.since = now;
      this.lastLine = now;
      this.notice(
        "error",
        { err: error, kept },
        `buffered hits cannot be written: they are kept in memory (up to ${this.backlog}) and written once they can be; beyond that, hits are dropped as unavailable`,
      );
      return;
    }
    if (now - this.lastLine < REPEAT_MS) return;
    this.lastLine = now;
    this.notice(
      "warn",
      { err: error, kept, dropped: this.refused, sinceMs: now - this.since },
      "buffered hits still cannot be written",
    );
  }

  /** A hit was dropped as unavailable. */
  dropped(): void {
    this.refused += 1;
  }

  /** A write succeeded after failed ones. */
  recovered(): void {
    if (this.since === null) return;
    this.notice(
      "info",
      { dropped: this.refused, downMs: this.now() - this.since },
      "buffered hits are written again; those kept meanwhile are stored",
    );
    this.since = null;
    this.refused = 0;
  }

  /** The event store failed (attempts 0) or opening it again failed. */
  storeFailed(error: unknown, attempts: number, nextAttemptMs: number): void {
    const now = this.now();
    if (attempts > 0 && now - this.lastReopenLine < REPEAT_MS) return;
    this.lastReopenLine = now;
    this.notice(
      attempts === 0 ? "error" : "warn",
      { err: error, attempts, nextAttemptMs },
      attempts === 0
        ? "the event store failed; it is being opened again"
        : "opening the event store again failed; retrying",
    );
  }

  /** The event store is open again. */
  storeReopened(attempts: number): void {
    this.lastReopenLine = Number.NEGATIVE_INFINITY;
    this.notice("info", { attempts }, "the event store is open again");
  }
}
