// Lowers the scheduling priority of every thread of this process but the main one, where
// requests are answered (Linux; elsewhere it does nothing). The other threads are the event
// store's (DuckDB's commits run on the libuv pool), the import threads, and the runtime's
// (garbage collection, compilation); their work can wait a few milliseconds, a visitor's
// hit should not. When the main thread has a core to itself nothing changes; when they
// share one, the kernel runs the helpers while the main thread waits for requests instead
// of in the middle of answering one. The write buffer's back-pressure keeps the helpers from falling behind
// for long: once it is full, answers wait for the store and the main thread idles.
//
// Measured on one core at 5,000 hits/s, alternating (bench/RESULTS.md, "Collection, eighth
// measurement"): p99 5.5-9.6 ms niced, 7.0-14.7 not; the threads in the way were mostly
// V8's garbage-collection helpers.

import fs from "node:fs";
import os from "node:os";

const TASKS = "/proc/self/task";
/** Threads appear after start (the libuv pool on first use, the store's own): look again now and then. */
const RESCAN_MS = 2_000;

/** Adds `niceness` to every other thread now and to new ones as they appear; returns a stop function. */
export function deprioritiseHelperThreads(niceness: number): () => void {
  if (niceness <= 0 || process.platform !== "linux" || !fs.existsSync(TASKS)) return () => undefined;
  const target = Math.min(19, os.getPriority() + niceness);
  const done = new Set<number>([process.pid]);
  const scan = () => {
    let tids: string[];
    try {
      tids = fs.readdirSync(TASKS);
    } catch {
      return;
    }
    for (const name of tids) {
      const tid = Number(name);
      if (done.has(tid)) continue;
      done.add(tid);
      try {
        os.setPriority(tid, target);
      } catch {
        // the thread ended meanwhile, or the system refuses: it keeps its priority
      }
    }
  };
  scan();
  const timer = setInterval(scan, RESCAN_MS);
  timer.unref();
  return () => clearInterval(timer);
}
