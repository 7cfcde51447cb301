// Says in the log why requests are refused while a store cannot answer (a server that cannot
// be reached, a full disk), without flooding it. A client is told only which store is
// unavailable (StoreUnavailableError.clientMessage), so the cause is told here: once when a
// store starts failing, then at most once a minute while it goes on, with how many requests
// it refused meanwhile. During an outage every request that needs the store fails alike:
// one line each would be hundreds a second of the same cause.

import type { StoreName, StoreUnavailableError } from "./errors.js";
import type { Notice } from "./ingest/outage-log.js";

/** At most one line a minute per store; a minute without failures ends an outage. */
const REPEAT_MS = 60_000;

interface Outage {
  lastFailure: number;
  lastLine: number;
  /** Requests refused since the last line. */
  refused: number;
}

export class StoreFailureLog {
  private readonly outages = new Map<StoreName, Outage>();

  constructor(
    private readonly notice: Notice,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request (or a hit) was refused because `error`'s store cannot answer. */
  refused(error: StoreUnavailableError): void {
    const now = this.now();
    const { store } = error;
    const outage = this.outages.get(store);
    if (!outage || now - outage.lastFailure >= REPEAT_MS) {
      this.outages.set(store, { lastFailure: now, lastLine: now, refused: 0 });
      this.notice(
        "error",
        { err: error, store },
        `the ${store} store cannot answer: requests that need it are refused (${error.message})`,
      );
      return;
    }
    outage.lastFailure = now;
    outage.refused += 1;
    if (now - outage.lastLine < REPEAT_MS) return;
    this.notice(
      "warn",
      { err: error, store, refused: outage.refused },
      `the ${store} store still cannot answer (${error.message})`,
    );
    outage.lastLine = now;
    outage.refused = 0;
  }
}
