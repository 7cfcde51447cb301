// Sends the reports from a running server: once at start (to catch up a period whose due
// time passed while no server ran), then at each due time (Monday or the 1st, 06:00 UTC),
// and an hour after a run in which some sends failed. The report log's claims make every
// run safe to repeat, on one server or several.

import type { Clock } from "../clock.js";
import type { ReportPeriodKind } from "../config.js";
import type { Mailer } from "./mailer.js";
import { latestDuePeriod, nextDueTime } from "./report-period.js";
import type { ReportRunResult, ReportSender } from "./report-sender.js";

/** How soon failed sends are retried. */
export const RETRY_MS = 60 * 60_000;
/** The longest single timer (setTimeout caps near 24.8 days; a month is longer). */
const MAX_TIMER_MS = 24 * 60 * 60_000;

/** The logger calls the scheduler makes (pino's, as Fastify's `app.log`, fits). */
export interface ReportLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export class ReportScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private log: ReportLogger | null = null;
  private closed = false;

  constructor(
    private readonly sender: ReportSender,
    private readonly mailer: Mailer,
    private readonly kind: ReportPeriodKind,
    private readonly clock: Clock,
  ) {}

  /** Runs the catch-up send now and schedules the next ones. */
  start(log: ReportLogger): void {
    if (this.closed || this.log) return;
    this.log = log;
    this.tick();
  }

  /** Sends the reports of the period most recently due at `now` to everyone who has not had it. */
  async runOnce(now = this.clock.now()): Promise<ReportRunResult> {
    const period = latestDuePeriod(this.kind, now);
    const result = await this.sender.send(period, this.mailer, () => this.closed);
    for (const failure of result.failed) {
      this.log?.error(
        { period: period.key, to: failure.email, error: failure.error },
        "email report failed; it will be retried",
      );
    }
    if (result.sent.length > 0 || result.failed.length > 0) {
      this.log?.info(
        { period: period.key, sent: result.sent.length, failed: result.failed.length },
        "email reports sent",
      );
    }
    return result;
  }

  /** Resolves once the run in progress, if any, has finished. */
  async settled(): Promise<void> {
    await this.running;
  }

  /** Stops scheduling and waits for a run in progress to finish the send it is in. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.mailer.close();
  }

  private tick(): void {
    this.timer = null;
    const started = this.clock.now();
    this.running = this.runOnce(started).then(
      (result) => this.schedule(started, result.failed.length > 0),
      (error: unknown) => {
        this.log?.error({ err: error }, "email reports could not be sent; retrying later");
        this.schedule(started, true);
      },
    );
  }

  /**
   * Wakes at the first due time after the run that `started` then: counted from its start,
   * not its end, so a period that fell due while it sent (a start just before a due time, a
   * long run) is sent at once rather than a period later.
   */
  private schedule(started: Date, retrySoon: boolean): void {
    const due = nextDueTime(this.kind, started).getTime();
    this.wakeAt(retrySoon ? Math.min(due, this.clock.now().getTime() + RETRY_MS) : due);
  }

  /**
   * Runs at `target`, in steps of at most a day (longer timers overflow). Waking early only
   * waits again: running then would also mail users who turned reports on since the last
   * due time, ahead of the schedule.
   */
  private wakeAt(target: number): void {
    if (this.closed) return;
    const delay = target - this.clock.now().getTime();
    if (delay <= 0) {
      this.tick();
      return;
    }
    this.timer = setTimeout(() => this.wakeAt(target), Math.min(delay, MAX_TIMER_MS));
    this.timer.unref();
  }
}
