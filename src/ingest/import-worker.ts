// An import thread (see import-threads.ts): reads bodies of POST /api/v1/events (JSON and
// schema, as the framework would), then, given the caller's websites and the salts of the
// events' days that the requesting thread looked up, checks, screens and enriches their
// events and sends them back as columns. It keeps its own user-agent, geolocation and page caches; it opens no
// store. Requests are handled one at a time, each against the clock of its own request.

import { parentPort, workerData } from "node:worker_threads";
import { importBodyReader } from "../api/import-body.js";
import { IndexedGeoLookup } from "../enrich/geo.js";
import { UserAgentClassifier } from "../enrich/user-agent.js";
import { ValidationError } from "../errors.js";
import { type ImportEvent, ImportPreparer, namedWebsites, type SchemaRejections } from "./event-importer.js";
import type { ImportReply, ImportRequest, ImportWorkerData } from "./import-threads.js";
import { IngestPipeline } from "./pipeline.js";
import { GivenSaltsHasher } from "./visitor-hasher.js";
import { type TrackedWebsite, trackedWebsite } from "./website-directory.js";

const port = parentPort;
if (!port) throw new Error("import-worker.ts runs as a worker thread");
const data = workerData as ImportWorkerData;

/** The salts of the days of the request being prepared, as the requesting thread sent them. */
const visitors = new GivenSaltsHasher();

const preparer = new ImportPreparer(
  new IngestPipeline({
    // Imports name their websites; this thread resolves no hosts.
    directory: { known: () => null, lookUp: async () => null, lastKnown: () => null },
    userAgents: new UserAgentClassifier(),
    geo: new IndexedGeoLookup(async () => {
      if (data.geoIndex === null) throw new Error("no geolocation index"); // the requesting thread said why
      return data.geoIndex;
    }),
    visitors,
  }),
);
const readBody = importBodyReader();
/** Events of bodies read and not prepared or forgotten yet, by request. */
const jobs = new Map<number, { events: ImportEvent[]; rejected: SchemaRejections; instants: Float64Array }>();

async function handle(request: ImportRequest): Promise<void> {
  const reply = (message: ImportReply, transfer: ArrayBuffer[] = []) => port?.postMessage(message, transfer);
  const { id } = request;
  switch (request.type) {
    case "read": {
      const read = readBody(request.body);
      if ("problem" in read) return reply({ type: "problem", id, problem: read.problem });
      // Only well-formed times name a day whose salt the batch needs; kept for the checks,
      // so each ts is parsed once.
      const instants = Float64Array.from(read.events, (event) =>
        typeof event.ts === "string" ? Date.parse(event.ts) : Number.NaN,
      );
      jobs.set(id, { ...read, instants });
      const websiteIds = namedWebsites(read.events, read.rejected);
      const sent = instants.slice();
      return reply({ type: "read", id, websiteIds, instants: sent }, [sent.buffer]);
    }
    case "prepare": {
      const job = jobs.get(id);
      jobs.delete(id);
      if (!job) return reply({ type: "failed", id, message: "no such import" });
      visitors.use(request.salts);
      const owned = new Map<number, TrackedWebsite>(
        request.websites.map((record) => [record.id, trackedWebsite(record)]),
      );
      try {
        const { columns, transfer, dropped } = await preparer.prepare(
          job.events,
          job.rejected,
          owned,
          new Date(request.now),
          job.instants,
        );
        return reply({ type: "prepared", id, columns, dropped }, transfer);
      } catch (error) {
        if (error instanceof ValidationError) return reply({ type: "invalid", id, fields: error.fields });
        return reply({ type: "failed", id, message: (error as Error).message });
      }
    }
    case "forget":
      jobs.delete(id);
      return;
  }
}

let queue = Promise.resolve();
port.on("message", (request: ImportRequest) => {
  queue = queue
    .then(() => handle(request))
    .catch((error: unknown) => {
      jobs.delete(request.id);
      port.postMessage({ type: "failed", id: request.id, message: String(error) } satisfies ImportReply);
    });
});
