// The one table from transport-neutral error codes to HTTP, and the handler that turns
// anything thrown during a request into the contract's error body. Nothing a client sends
// becomes a 500; a real 500 says only "Server Error" and logs the cause, and a store that
// cannot answer is a 503 saying which store alone (the cause is logged: store-failure-log.ts).

import { errorCodes, type FastifyError, type FastifyReply, type FastifyRequest } from "fastify";
import { AppError, type ErrorCode, StoreUnavailableError, ValidationError } from "../errors.js";
import type { StoreFailureLog } from "../store-failure-log.js";
import type { JsonBodyProblem } from "./json-body.js";
import { queryProblems } from "./request-checks.js";
import { fieldErrorsFromAjv } from "./validation-messages.js";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/** Fixed sentences the contract prescribes; other codes carry the thrower's message. */
const FIXED_MESSAGES: Partial<Record<ErrorCode, string>> = {
  unauthenticated: "Unauthenticated.",
  forbidden: "This action is unauthorized.",
  not_found: "Resource not found.",
  rate_limited: "Too Many Attempts.",
  payload_too_large: "The request body is too large.",
  internal: "Server Error",
};

const CODE_BY_STATUS = new Map(
  Object.entries(HTTP_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/**
 * What a refused JSON body is answered with: the framework's own errors for an empty body and
 * for text that is not JSON (400), and a 400 saying which keys are refused in valid JSON.
 */
export function jsonBodyError(problem: JsonBodyProblem): Error {
  switch (problem) {
    case "empty":
      return new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
    case "not_json":
      return new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
    case "forbidden_key":
      return new AppError(
        "bad_request",
        "The body must not contain a __proto__ key, nor a constructor key holding a prototype key.",
      );
  }
}

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  const status = HTTP_STATUS[code];
  return reply.code(status).send({ message: FIXED_MESSAGES[code] ?? message ?? "Error", status });
}

/** The 405 of a known path asked with another method, `allowed` being the methods it serves. */
export function sendMethodNotAllowed(reply: FastifyReply, method: string, allowed: readonly string[]) {
  reply.header("allow", allowed.join(", "));
  return sendError(
    reply,
    "method_not_allowed",
    `The ${method} method is not supported for this route. Supported methods: ${allowed.join(", ")}.`,
  );
}

/** The error handler of the app, telling `storeFailures` of each store that could not answer. */
export function errorHandler(storeFailures: StoreFailureLog) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) =>
    handleError(error, request, reply, storeFailures);
}

function handleError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
  storeFailures: StoreFailureLog,
) {
  if ("validation" in error && Array.isArray(error.validation)) {
    const fields = fieldErrorsFromAjv(error.validation);
    // The query's other checks too, of the fields the schema found valid: every invalid field at once.
    const more =
      error.validationContext === "querystring" ? queryProblems(request, new Set(Object.keys(fields))) : {};
    return reply.code(422).send({ message: { ...fields, ...more }, status: 422 });
  }
  if (error instanceof ValidationError) {
    return reply.code(422).send({ message: error.fields, status: 422 });
  }
  // Its message names servers, ports and files: the client gets the store's sentence, the log the rest.
  if (error instanceof StoreUnavailableError) {
    storeFailures.refused(error);
    return sendError(reply, "unavailable", error.clientMessage);
  }
  if (error instanceof AppError) {
    const { retryAfter } = error as { retryAfter?: unknown };
    if (typeof retryAfter === "number") reply.header("retry-after", String(retryAfter));
    return sendError(reply, error.code, error.message);
  }
  const status = (error as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return sendError(reply, CODE_BY_STATUS.get(status) ?? "bad_request", error.message);
  }
  request.log.error({ err: error }, "request failed");
  return sendError(reply, "internal");
}
