// The public side of collection: GET /js/script.js (the tracker) and POST /api/event (its
// hits). The endpoint answers 202 with an empty body whatever happens, because a tracker
// never retries; a dropped hit says why in X-Analytics-Dropped. Bodies are read as JSON
// when sent as application/json or text/plain (sendBeacon's type, which needs no CORS
// preflight); another type, or anything unreadable, is dropped as invalid rather than
// refused. Only a body over 16 KB (413) and another method (405) are refused, and every
// answer carries the CORS header, so the tracker's page may read it. Real traffic to
// POST /api/event takes the fast path (fast-collect.ts); this route documents it and serves
// in-process requests, through the same CollectEndpoint.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { Type } from "typebox";
import { errorHandler, sendMethodNotAllowed } from "../api/http-errors.js";
import { COLLECT_DROP_REASONS, type CollectDropReason } from "../ingest/hit.js";
import type { StoreFailureLog } from "../store-failure-log.js";
import {
  COLLECT_BODY_LIMIT,
  COLLECT_CORS,
  type CollectEndpoint,
  readsContentType,
} from "./collect-endpoint.js";
import type { TrackerAsset } from "./tracker-asset.js";

const DROPPED_HEADER = "x-analytics-dropped";
/** The methods POST /api/event is served with (OPTIONS: the CORS preflight). */
const EVENT_METHODS = ["OPTIONS", "POST"];

const EventPayload = Type.Object(
  {
    page: Type.String({
      description: "Absolute URL of the page; its host (without www.) names the website.",
    }),
    referrer: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "Referrer URL, or empty." }),
    ),
    screen_resolution: Type.Optional(Type.String({ description: "WIDTHxHEIGHT, e.g. 1920x1080." })),
    event: Type.Optional(
      Type.Object(
        {
          name: Type.String(),
          value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Null()])),
          unit: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        },
        { description: "A custom event; without it the hit is a pageview (or an engagement)." },
      ),
    ),
    engagement: Type.Optional(
      Type.Unknown({
        description:
          "`true` (or 1), without `event`: an engagement, the page was looked at until now (sent when it is hidden or left); it ends the visit later and counts in no other statistic.",
      }),
    ),
  },
  { additionalProperties: true },
);

export interface CollectRoutesOptions {
  endpoint: CollectEndpoint;
  tracker: TrackerAsset;
  /** Where the app's error handler reports a store that could not answer. */
  storeFailures: StoreFailureLog;
}

export async function collectRoutes(scope: FastifyInstance, options: CollectRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { endpoint, tracker } = options;
  const handleError = errorHandler(options.storeFailures);

  // Errors too (a 413, a 405): the framework's answers would otherwise be unreadable to the page.
  app.addHook("onSend", async (_request, reply) => {
    reply.headers(COLLECT_CORS);
  });

  // A Content-Type the framework cannot parse (empty, malformed) is refused with a 415
  // before any parser: a hit whose body is not read, as the fast path answers it.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (request.method === "POST" && error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      return accepted(reply, "invalid");
    }
    return handleError(error, request, reply);
  });

  // Any body is read as text and parsed as JSON here; a parse failure becomes an invalid hit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "string", bodyLimit: COLLECT_BODY_LIMIT },
    (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(null, null);
      }
    },
  );

  app.get(
    "/js/script.js",
    { schema: { tags: ["Collection"], summary: "The tracking script" } },
    (request, reply) => {
      reply
        .header("content-type", "application/javascript; charset=utf-8")
        .header("cache-control", "public, max-age=604800")
        .header("etag", tracker.etag)
        .header("vary", "Accept-Encoding")
        .header("access-control-allow-origin", "*");
      if (request.headers["if-none-match"] === tracker.etag) return reply.code(304).send();
      if (/\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""))) {
        return reply.header("content-encoding", "gzip").send(tracker.gzipped);
      }
      return reply.send(tracker.source);
    },
  );

  app.options("/api/event", { schema: { hide: true } }, (_request, reply) =>
    reply
      .code(204)
      .header("access-control-allow-methods", "POST, OPTIONS")
      .header("access-control-allow-headers", "Content-Type")
      .header("access-control-max-age", "86400")
      .send(),
  );

  app.post(
    "/api/event",
    {
      bodyLimit: COLLECT_BODY_LIMIT,
      // The schema documents the payload; CollectEndpoint reads it (as the fast path does).
      validatorCompiler: () => () => true,
      schema: {
        tags: ["Collection"],
        summary: "Record a pageview or custom event (public, used by the tracker)",
        description: `Answers 202 with an empty body (413 to a body over 16 KB), and \`Access-Control-Allow-Origin: *\` on every answer. A dropped hit carries \`X-Analytics-Dropped\`: one of ${COLLECT_DROP_REASONS.join(", ")} (\`invalid\`: a body that is no hit, or not sent as application/json or text/plain; \`unavailable\`: the event store cannot take writes for now, or the metadata store cannot look the website up).`,
        consumes: ["application/json", "text/plain"],
        body: EventPayload,
        response: { 202: Type.Null({ description: "Accepted (or dropped, see X-Analytics-Dropped)." }) },
      },
    },
    async (request, reply) => {
      // A body of another type is not read (see readsContentType): an invalid hit.
      const body = readsContentType(request.headers["content-type"]) ? request.body : null;
      const dropped = await endpoint.handle(body, {
        ip: request.ip,
        userAgent: String(request.headers["user-agent"] ?? ""),
        acceptLanguage: String(request.headers["accept-language"] ?? ""),
      });
      return accepted(reply, dropped);
    },
  );

  // Another method: 405 with Allow, as the API answers one (api-v1.ts). HEAD comes with GET.
  app.route({
    method: app.supportedMethods.filter((method) => method !== "HEAD" && !EVENT_METHODS.includes(method)),
    url: "/api/event",
    schema: { hide: true },
    handler: (request, reply) => sendMethodNotAllowed(reply, request.method, EVENT_METHODS),
  });
}

function accepted(reply: FastifyReply, dropped: CollectDropReason | null) {
  if (dropped) reply.header(DROPPED_HEADER, dropped);
  return reply.code(202).send();
}
