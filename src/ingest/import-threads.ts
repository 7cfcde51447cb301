// The import threads, as seen from the thread answering requests: each body of
// POST /api/v1/events goes to the least busy thread (started on first need, up to the
// configured number), which reads and schema-checks it and says which websites it names;
// given those websites and the day salts, the same thread checks, screens and enriches its
// events and sends them back as columns (event-columns.ts). See import-worker.ts.
//
// A thread that dies takes only its own requests with it (they fail as server errors); the
// next request starts a new one.

import { Worker } from "node:worker_threads";
import type { ImportBodyProblem } from "../api/import-body.js";
import type { FieldErrors } from "../errors.js";
import { ValidationError } from "../errors.js";
import type { EventColumns, WebsiteRecord } from "../storage/ports.js";
import type { ImportDropReason } from "./hit.js";
import type { DaySalts } from "./visitor-hasher.js";

/** A body that is not a readable import (the route answers as the framework would). */
export class ImportBodyError extends Error {
  constructor(readonly problem: ImportBodyProblem) {
    super(`unreadable import body: ${problem.kind}`);
    this.name = "ImportBodyError";
  }
}

export interface ImportWorkerData {
  /** The geolocation index every thread reads (geo.ts), or null when there is none. */
  geoIndex: string | null;
}

export type ImportRequest =
  | { type: "read"; id: number; body: Uint8Array }
  | { type: "prepare"; id: number; websites: WebsiteRecord[]; salts: DaySalts; now: number }
  | { type: "forget"; id: number };

export type ImportReply =
  | { type: "read"; id: number; websiteIds: number[]; instants: Float64Array }
  | { type: "problem"; id: number; problem: ImportBodyProblem }
  | { type: "prepared"; id: number; columns: EventColumns; dropped: Record<ImportDropReason, number> }
  | { type: "invalid"; id: number; fields: FieldErrors }
  | { type: "failed"; id: number; message: string };

/** A body read by a thread, which keeps its events until prepare() or forget(). */
export interface ReadImport {
  /** The websites its events name (the caller's own are looked up and handed to prepare). */
  websiteIds: number[];
  /** Its events' instants (ms; NaN where unreadable): their days' salts are handed to prepare. */
  instants: Float64Array;
  /** Checks, screens and enriches the events; throws ValidationError when any is invalid. */
  prepare(
    websites: WebsiteRecord[],
    salts: DaySalts,
    now: Date,
  ): Promise<{ columns: EventColumns; dropped: Record<ImportDropReason, number> }>;
  /** Lets the thread drop the events (after prepare, or instead of it). */
  forget(): void;
}

interface Pending {
  resolve: (reply: ImportReply) => void;
  reject: (error: Error) => void;
}

class ImportThread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  /** Bodies sent and not yet forgotten. */
  jobs = 0;
  /** Why the thread stopped, once it has. */
  private gone: Error | null = null;

  constructor(data: ImportWorkerData, onGone: (thread: ImportThread) => void) {
    this.worker = new Worker(new URL("./import-worker.js", import.meta.url), { workerData: data });
    this.worker.unref(); // an idle thread must not keep the process alive
    this.worker.on("message", (reply: ImportReply) => {
      const pending = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      pending?.resolve(reply);
    });
    const fail = (error: Error) => {
      this.gone ??= error;
      onGone(this);
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", (error) => fail(new Error(`import thread failed: ${error.message}`)));
    this.worker.on("exit", (code) => fail(new Error(`import thread exited with code ${code}`)));
  }

  call(request: ImportRequest, transfer: ArrayBuffer[] = []): Promise<ImportReply> {
    return new Promise((resolve, reject) => {
      if (this.gone) return reject(this.gone);
      this.pending.set(request.id, { resolve, reject });
      this.worker.postMessage(request, transfer);
    });
  }
}

export class ImportThreads {
  private readonly threads: ImportThread[] = [];
  private nextId = 1;
  private closed = false;
  /** What every thread starts with (asked for on the first import). */
  private data: Promise<ImportWorkerData> | null = null;

  /** `geoIndex` gives the geolocation index the threads read (written on the first import if need be). */
  constructor(
    private readonly size: number,
    private readonly geoIndex: () => Promise<string | null>,
  ) {}

  /** Sends a body to a thread to be read; throws ImportBodyError when it is not a valid import. */
  async read(body: Uint8Array): Promise<ReadImport> {
    const thread = await this.pick();
    const id = this.nextId++;
    // The body's memory moves to the thread when it owns all of it (a large body always
    // does); a view into a shared buffer is copied.
    const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const sent = owned ? body : body.slice();
    thread.jobs += 1;
    let forgotten = false;
    const forget = () => {
      if (forgotten) return;
      forgotten = true;
      thread.jobs -= 1;
      thread.worker.postMessage({ type: "forget", id } satisfies ImportRequest);
    };
    let reply: ImportReply;
    try {
      reply = await thread.call({ type: "read", id, body: sent }, [sent.buffer as ArrayBuffer]);
    } catch (error) {
      forget();
      throw error;
    }
    if (reply.type !== "read") {
      forget();
      throw replyError(reply);
    }
    return {
      websiteIds: reply.websiteIds,
      instants: reply.instants,
      prepare: async (websites, salts, now) => {
        const prepared = await thread.call({ type: "prepare", id, websites, salts, now: now.getTime() });
        if (prepared.type !== "prepared") throw replyError(prepared);
        return { columns: prepared.columns, dropped: prepared.dropped };
      },
      forget,
    };
  }

  /** Stops every thread. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((thread) => thread.worker.terminate()));
  }

  /** The least busy thread, a new one while fewer than `size` run and all are busy. */
  private async pick(): Promise<ImportThread> {
    this.data ??= this.geoIndex().then((geoIndex) => ({ geoIndex }));
    const data = await this.data;
    if (this.closed) throw new Error("the import threads are closed");
    let best: ImportThread | undefined;
    for (const thread of this.threads) if (!best || thread.jobs < best.jobs) best = thread;
    if (best && (best.jobs === 0 || this.threads.length >= this.size)) return best;
    const thread = new ImportThread(data, (gone) => {
      const index = this.threads.indexOf(gone);
      if (index >= 0) this.threads.splice(index, 1);
    });
    this.threads.push(thread);
    return thread;
  }
}

function replyError(reply: ImportReply): Error {
  switch (reply.type) {
    case "problem":
      return new ImportBodyError(reply.problem);
    case "invalid":
      return new ValidationError(reply.fields);
    case "failed":
      return new Error(`import thread: ${reply.message}`);
    default:
      return new Error(`import thread: unexpected ${reply.type} reply`);
  }
}
