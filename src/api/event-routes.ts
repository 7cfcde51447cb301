// POST /api/v1/events: server-side tracking and imports, up to 10,000 events a request,
// all or nothing, durable once answered.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { EventImporter } from "../ingest/event-importer.js";
import { MAX_IMPORT_EVENTS } from "../ingest/event-importer.js";
import { DROP_REASONS } from "../ingest/hit.js";
import { currentUser } from "./authenticate.js";
import { COMMON_ERRORS, ValidationErrorBody } from "./schema-types.js";

export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

const ImportedEvent = Type.Object({
  website_id: Type.Integer({ minimum: 1, description: "One of your websites." }),
  ts: Type.String({ format: "date-time", description: "When it happened, ISO-8601 with a time zone." }),
  page: Type.String({ maxLength: 8192, description: "Absolute URL of the page." }),
  referrer: Type.Optional(Type.String({ maxLength: 8192 })),
  screen_resolution: Type.Optional(Type.String({ maxLength: 32, description: "WIDTHxHEIGHT." })),
  ip: Type.Optional(
    Type.String({ maxLength: 64, description: "The visitor's IP address (used, never stored)." }),
  ),
  user_agent: Type.Optional(
    Type.String({ maxLength: 2048, description: "The visitor's user agent (used, never stored)." }),
  ),
  accept_language: Type.Optional(Type.String({ maxLength: 512 })),
  event: Type.Optional(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      value: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Number()])),
      unit: Type.Optional(Type.String({ maxLength: 64 })),
    }),
  ),
});

const ImportBody = Type.Object({
  events: Type.Array(ImportedEvent, { minItems: 1, maxItems: MAX_IMPORT_EVENTS }),
});

const ImportAnswer = Type.Object({
  accepted: Type.Integer({ description: "Events stored." }),
  dropped: Type.Object(Object.fromEntries(DROP_REASONS.map((reason) => [reason, Type.Integer()]))),
  status: Type.Literal(202),
});

export async function eventRoutes(scope: FastifyInstance, options: { importer: EventImporter }) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    "/events",
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags: ["Events"],
        security: [{ bearerAuth: [] }],
        summary: "Record events server-side or import them (all or nothing)",
        body: ImportBody,
        response: { 202: ImportAnswer, 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request, reply) => {
      const result = await options.importer.import(
        currentUser(request).id,
        request.body.events.map((event) => ({
          websiteId: event.website_id,
          ts: event.ts,
          page: event.page,
          referrer: event.referrer,
          screenResolution: event.screen_resolution,
          ip: event.ip,
          userAgent: event.user_agent,
          acceptLanguage: event.accept_language,
          event: event.event,
        })),
      );
      return reply.code(202).send({ ...result, status: 202 as const });
    },
  );
}
