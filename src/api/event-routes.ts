// POST /api/v1/events: server-side tracking and imports, up to 10,000 events a request,
// all or nothing, durable once answered. The body is read on an import thread (see
// event-importer.ts), so this route takes JSON bodies as bytes; its schema documents the
// body and is checked there, with the same options and errors as every other route's.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { EventImporter } from "../ingest/event-importer.js";
import { IMPORT_DROP_REASONS } from "../ingest/hit.js";
import { ImportBodyError } from "../ingest/import-threads.js";
import { currentUser } from "./authenticate.js";
import { jsonBodyError } from "./http-errors.js";
import { ImportBody, type ImportBodyProblem } from "./import-body.js";
import { COMMON_ERRORS, ValidationErrorBody } from "./schema-types.js";

export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

const ImportAnswer = Type.Object({
  accepted: Type.Integer({ description: "Events stored." }),
  dropped: Type.Object(Object.fromEntries(IMPORT_DROP_REASONS.map((reason) => [reason, Type.Integer()]))),
  status: Type.Literal(202),
});

export async function eventRoutes(scope: FastifyInstance, options: { importer: EventImporter }) {
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: IMPORT_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    "/events",
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      validatorCompiler: () => () => true, // checked on the import thread (import-body.ts)
      schema: {
        tags: ["Events"],
        security: [{ bearerAuth: [] }],
        summary: "Record events server-side or import them (all or nothing)",
        body: ImportBody,
        response: { 202: ImportAnswer, 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request, reply) => {
      const raw: unknown = request.body;
      // A form was parsed as usual: checked as JSON all the same.
      const body = Buffer.isBuffer(raw) ? raw : Buffer.from(JSON.stringify(raw ?? null));
      try {
        const result = await options.importer.importBody(currentUser(request).id, body);
        return reply.code(202).send({ ...result, status: 202 as const });
      } catch (error) {
        if (error instanceof ImportBodyError) throw asFrameworkError(error.problem);
        throw error;
      }
    },
  );
}

/** The error another route raises for the same body read by its parser and validator. */
function asFrameworkError(problem: ImportBodyProblem): Error {
  if (problem.kind !== "schema") return jsonBodyError(problem.kind);
  return Object.assign(new Error("body is invalid"), {
    validation: problem.validation,
    validationContext: "body",
  });
}
