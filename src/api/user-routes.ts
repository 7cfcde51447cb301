// /api/v1/users: administrators (`analytics users create --admin`) list the users and create
// new ones, each with its first API key, shown once. Anyone else gets a 403.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { USER_NAME_MAX_LENGTH } from "../accounts/user-name-rule.js";
import type { UserService } from "../accounts/user-service.js";
import { formatTimestamp } from "../clock.js";
import type { UserRecord } from "../storage/ports.js";
import { currentUser } from "./authenticate.js";
import { listEnvelope } from "./pagination.js";
import {
  COMMON_ERRORS,
  FORBIDDEN_ERROR,
  integerEnum,
  PagedList,
  PageParam,
  PerPageParam,
  ValidationErrorBody,
} from "./schema-types.js";

const User = Type.Object(
  {
    id: Type.Integer({ description: "Identifier, assigned in creation order." }),
    email: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    admin: Type.Boolean({ description: "Whether the user may list and create users." }),
    created_at: Type.String({ description: "ISO-8601 UTC with microseconds." }),
    updated_at: Type.String({ description: "ISO-8601 UTC with microseconds." }),
  },
  { title: "User" },
);

const CreateUserBody = Type.Object({
  email: Type.String({ "x-rule": "email", description: "The user's email address (lowercased); unique." }),
  name: Type.Optional(Type.String({ maxLength: USER_NAME_MAX_LENGTH, "x-rule": "user-name" })),
  admin: Type.Optional(
    integerEnum([0, 1] as const, { default: 0, description: "1 makes an administrator." }),
  ),
});

const tags = ["Users"];
const security = [{ bearerAuth: [] }];

export async function userRoutes(
  scope: FastifyInstance,
  options: { users: UserService; publicUrl: string | null },
) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { users, publicUrl } = options;

  app.get(
    "/users",
    {
      schema: {
        tags,
        security,
        summary: "List users (administrators only)",
        querystring: Type.Object({ per_page: PerPageParam, page: PageParam }),
        response: { 200: PagedList(User), 422: ValidationErrorBody, ...FORBIDDEN_ERROR, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const page = { perPage: request.query.per_page ?? 10, page: request.query.page ?? 1 };
      const { items, total } = await users.list(currentUser(request), page);
      return listEnvelope(request, publicUrl, items.map(toResource), total, page);
    },
  );

  app.post(
    "/users",
    {
      schema: {
        tags,
        security,
        summary: "Create a user and its API key (administrators only)",
        consumes: ["application/x-www-form-urlencoded", "application/json"],
        body: CreateUserBody,
        response: {
          201: Type.Object({
            data: User,
            api_key: Type.String({ description: "The new user's API key; it is shown only this once." }),
            status: Type.Literal(201),
          }),
          422: ValidationErrorBody,
          ...FORBIDDEN_ERROR,
          ...COMMON_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const { email, name, admin } = request.body;
      const created = await users.createAs(currentUser(request), { email, name, admin: admin === 1 });
      return reply
        .code(201)
        .send({ data: toResource(created.user), api_key: created.apiKey, status: 201 as const });
    },
  );
}

function toResource(user: UserRecord) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    admin: user.isAdmin,
    created_at: formatTimestamp(user.createdAt),
    updated_at: formatTimestamp(user.updatedAt),
  };
}
