// The public side of collection: GET /js/script.js (the tracker) and POST /api/event (its
// hits). The endpoint answers 202 with an empty body whatever happens, because a tracker
// never retries; a dropped hit says why in X-Analytics-Dropped. Bodies are read as JSON
// whether sent as application/json or text/plain (sendBeacon's type, which needs no CORS
// preflight), and anything unreadable is dropped as invalid rather than refused.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { Type } from "typebox";
import type { Clock } from "../clock.js";
import type { CollectRateLimiter } from "../ingest/collect-rate-limiter.js";
import { DROP_REASONS, type DropReason, type HitEvent } from "../ingest/hit.js";
import type { IngestPipeline } from "../ingest/pipeline.js";
import type { WriteBuffer } from "../ingest/write-buffer.js";
import type { TrackerAsset } from "./tracker-asset.js";

export const COLLECT_BODY_LIMIT = 16 * 1024;
const DROPPED_HEADER = "x-analytics-dropped";

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
        { description: "A custom event; without it the hit is a pageview." },
      ),
    ),
  },
  { additionalProperties: true },
);

export interface CollectRoutesOptions {
  pipeline: IngestPipeline;
  buffer: WriteBuffer;
  limiter: CollectRateLimiter;
  clock: Clock;
  tracker: TrackerAsset;
}

export async function collectRoutes(scope: FastifyInstance, options: CollectRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { pipeline, buffer, limiter, clock, tracker } = options;

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
      .header("access-control-allow-origin", "*")
      .header("access-control-allow-methods", "POST, OPTIONS")
      .header("access-control-allow-headers", "Content-Type")
      .header("access-control-max-age", "86400")
      .send(),
  );

  app.post(
    "/api/event",
    {
      attachValidation: true,
      bodyLimit: COLLECT_BODY_LIMIT,
      schema: {
        tags: ["Collection"],
        summary: "Record a pageview or custom event (public, used by the tracker)",
        description: `Always answers 202 with an empty body. A dropped hit carries \`X-Analytics-Dropped\`: one of ${DROP_REASONS.join(", ")}.`,
        consumes: ["application/json", "text/plain"],
        body: EventPayload,
        response: { 202: Type.Null({ description: "Accepted (or dropped, see X-Analytics-Dropped)." }) },
      },
    },
    async (request, reply) => {
      reply.header("access-control-allow-origin", "*");
      if (request.validationError) return accepted(reply, "invalid");
      if (!limiter.allow(request.ip)) return accepted(reply, "rate_limited");
      const body = request.body;
      const outcome = await pipeline.processPublic({
        page: body.page,
        referrer: body.referrer ?? "",
        screenResolution: body.screen_resolution ?? "",
        event: (body.event as HitEvent | undefined) ?? null,
        ip: request.ip,
        userAgent: String(request.headers["user-agent"] ?? ""),
        acceptLanguage: String(request.headers["accept-language"] ?? ""),
        ts: clock.now(),
      });
      if (!outcome.kept) return accepted(reply, outcome.reason);
      buffer.add(outcome.event);
      return accepted(reply, null);
    },
  );
}

function accepted(reply: FastifyReply, dropped: DropReason | null) {
  if (dropped) reply.header(DROPPED_HEADER, dropped);
  return reply.code(202).send();
}
