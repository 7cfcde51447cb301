// Hashes and checks passwords (scrypt, see password-hash.ts) at most HASH_CONCURRENCY at a
// time, with at most MAX_WAITING_HASHES waiting; beyond that it refuses at once. Scrypt runs
// on libuv's shared thread pool (4 threads), which the embedded event store and file reads
// use too: 54 password guesses a second once filled it and held /api/v1/stats for 2-4.7 s
// instead of 10 ms. One at a time still checks about 20 passwords a second.

import { AppError } from "../errors.js";
import {
  type HashCost,
  hashPassword,
  PASSWORD_HASH_PARAMS,
  unmatchableHash,
  verifyPassword,
} from "./password-hash.js";

export const HASH_CONCURRENCY = 1;
/** About half a second of waiting at one hash at a time; more would only delay the answer. */
export const MAX_WAITING_HASHES = 8;

/** Too many passwords are being hashed already: try again in a moment. */
export class PasswordsBusyError extends AppError {
  readonly retryAfter = 1;

  constructor() {
    super("unavailable", "Too many passwords are being checked right now. Try again in a moment.");
    this.name = "PasswordsBusyError";
  }
}

export class PasswordHasher {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  /** What an email without a password is checked against (password-hash.ts, unmatchableHash). */
  readonly unmatchable: string;

  /** `cost`: of new hashes (a stored hash is checked at its own). */
  constructor(
    private readonly cost: HashCost = PASSWORD_HASH_PARAMS,
    private readonly concurrency = HASH_CONCURRENCY,
    private readonly maxWaiting = MAX_WAITING_HASHES,
  ) {
    this.unmatchable = unmatchableHash(cost);
  }

  /** The stored form of a new password; rejects with PasswordsBusyError when too busy. */
  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password, this.cost));
  }

  /** Whether `password` is the one `stored` was made from; rejects with PasswordsBusyError when too busy. */
  verify(password: string, stored: string): Promise<boolean> {
    return this.run(() => verifyPassword(password, stored));
  }

  /** Hashes running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.queue.length };
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrency) {
      this.active += 1;
    } else {
      if (this.queue.length >= this.maxWaiting) throw new PasswordsBusyError();
      // The finishing hash hands its place over (see below), so `active` stays counted.
      await new Promise<void>((resolve) => this.queue.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
