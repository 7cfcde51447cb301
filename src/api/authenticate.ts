// Bearer authentication of /api/v1: resolves `Authorization: Bearer <key>` to its user or
// answers 401. Keys are accepted only in this header, never in the URL.

import type { FastifyRequest } from "fastify";
import type { UserService } from "../accounts/user-service.js";
import { AppError } from "../errors.js";
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

export function authenticateHook(users: UserService) {
  return async (request: FastifyRequest) => {
    const token = bearerToken(request);
    const user = token ? await users.authenticate(token) : null;
    if (!user) throw new AppError("unauthenticated", "Unauthenticated.");
    request.user = user;
  };
}

/** The authenticated user of a route behind authenticateHook. */
export function currentUser(request: FastifyRequest): UserRecord {
  if (!request.user) throw new AppError("unauthenticated", "Unauthenticated.");
  return request.user;
}
