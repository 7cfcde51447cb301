// The checks of a request's fields that its schema cannot make (a range that ends before it
// starts, a filter's syntax, a custom comparison's range), run together so that a 422 names
// every invalid field at once, as the contract asks: before the handler when the schema
// found nothing, and beside the schema's own findings when it did (each check then only
// of fields the schema found valid). A route lists its checks in `config.checks`; each is
// one of the domain's own (stats-service.ts, totals.ts...), which throw ValidationError.

import type { FastifyRequest } from "fastify";
import { FieldErrorCollector, type FieldErrors, ValidationError } from "../errors.js";

/** The checks of a request's query; `valid(...names)` says whether the schema found those fields valid. */
export type FieldChecks = (
  query: Record<string, string | undefined>,
  valid: (...names: string[]) => boolean,
) => (() => void)[];

declare module "fastify" {
  interface FastifyContextConfig {
    /** Checks of the query beyond its schema (request-checks.ts). */
    checks?: FieldChecks;
  }
}

/** Every problem the route's checks find, fields in `invalid` (the schema's findings) left out. */
export function queryProblems(
  request: FastifyRequest,
  invalid: ReadonlySet<string> = new Set(),
): FieldErrors {
  const checks = request.routeOptions.config.checks;
  const found = new FieldErrorCollector();
  if (!checks) return found.fields;
  const valid = (...names: string[]) => names.every((name) => !invalid.has(name));
  for (const check of checks(request.query as Record<string, string | undefined>, valid)) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [field, messages] of Object.entries(error.fields))
        for (const message of messages) if (!invalid.has(field)) found.add(field, message);
    }
  }
  return found.fields;
}

/** A preHandler: refuses a request whose query fails a check, naming every field that does. */
export async function checkQuery(request: FastifyRequest): Promise<void> {
  const problems = queryProblems(request);
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}
