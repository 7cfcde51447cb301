// Translates DuckDB's errors into the port's: a fatal error (after which DuckDB refuses
// every call until the database is opened again), a full disk, and a file another process
// holds. DuckDB reports them only in its message text, so they are recognised here, in the
// adapter, and nowhere else.

import { StoreBusyError, StoreUnavailableError } from "../../errors.js";
import { EventStoreFailedError } from "../ports.js";

/** `FATAL Error: Failed to create checkpoint ...`, then `... database has been invalidated ...` on every call. */
const FATAL = /^FATAL Error|database has been invalidated/;
const NO_SPACE = /No space left on device/i;
/**
 * `IO Error: Could not set lock on file "...": Conflicting lock is held in ... (PID n)`.
 * Matched on these words alone: a damaged file's `... in block at location ...` is no lock.
 */
const LOCKED = /Could not set lock on file|Conflicting lock is held/;

/** The port's error for a DuckDB error; anything else is returned as it is. */
export function translateDuckDbError(error: unknown, file: string): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const cause = NO_SPACE.test(message) ? `no space left on device for ${file}` : firstLine(message);
  if (FATAL.test(message)) {
    return new EventStoreFailedError(`The event store failed and must be opened again: ${cause}`, {
      cause: error,
    });
  }
  // A write the disk had no room for, e.g. a commit's log: rolled back, the store still usable.
  if (NO_SPACE.test(message)) {
    return new StoreUnavailableError("event", `The event store cannot write for now: ${cause}`, {
      cause: error,
    });
  }
  return error;
}

/**
 * The error for a store file that cannot be opened or migrated (at start, or when opened
 * again): one line naming the file and the cause, e.g. `No space left on device while
 * opening /data/events.duckdb`.
 */
export function fileFailure(error: unknown, file: string, doing: "opening" | "migrating"): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!NO_SPACE.test(message) && !FATAL.test(message)) return error;
  const cause = NO_SPACE.test(message) ? "No space left on device" : firstLine(message);
  return new StoreUnavailableError("event", `${cause} while ${doing} ${file}`, { cause: error });
}

/**
 * The error for a data directory's store that cannot be opened: StoreBusyError when another
 * process (a running server) holds the file, else the error as it is.
 */
export function openFailure(error: unknown, dataDir: string): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!LOCKED.test(message)) return error;
  return new StoreBusyError(
    `The event store in ${dataDir} is in use by a running server (the embedded store has one writer). ` +
      "The server migrates it on start; commands that need it reach it through the server.",
  );
}

/** DuckDB repeats the original error on a second line ("Original error: ..."). */
function firstLine(message: string): string {
  return message.split("\n", 1)[0] ?? message;
}
