// Bearer authentication of /api/v1: resolves `Authorization: Bearer <key>` to its user or
// answers 401. Keys are accepted only in this header, never in the URL. A read-only key may
// read statistics and websites (GET and HEAD outside /users); anything else is a 403.

import type { FastifyRequest } from "fastify";
import type { ApiKeyService } from "../accounts/api-key-service.js";
import { AppError, ForbiddenError } from "../errors.js";
import type { UserRecord } from "../storage/ports.js";

declare module "fastify" {
  interface FastifyRequest {
    user: UserRecord | null;
  }
}

/** The token of a well-formed Bearer header, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  return header ? (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null) : null;
}

export function authenticateHook(keys: ApiKeyService) {
  return async (request: FastifyRequest) => {
    const token = bearerToken(request);
    const found = token ? await keys.authenticate(token) : null;
    if (!found) throw new AppError("unauthenticated", "Unauthenticated.");
    // The contract's fixed 403 ("This action is unauthorized."): the key's page says why.
    if (found.readOnly && !readOnlyMayAsk(request)) throw new ForbiddenError();
    request.user = found.user;
  };
}

/** What a read-only key may ask: reads of websites and statistics (the API's GETs but /users). */
function readOnlyMayAsk(request: FastifyRequest): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const path = request.url.split("?", 1)[0] ?? "";
  return /^\/api\/v1\/(websites|stats)(\/|$)/.test(path);
}

/** The authenticated user of a route behind authenticateHook. */
export function currentUser(request: FastifyRequest): UserRecord {
  if (!request.user) throw new AppError("unauthenticated", "Unauthenticated.");
  return request.user;
}
