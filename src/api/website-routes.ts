// /api/v1/websites: list, read, create, update and delete the caller's websites.
// Each handler is schema in, one service call, mapper out.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { type Static, Type } from "typebox";
import { formatTimestamp } from "../clock.js";
import { NotFoundError } from "../errors.js";
import type { WebsiteRecord } from "../storage/ports.js";
import { unicodeDomain } from "../unicode-domain.js";
import type { WebsiteService, WebsiteSettings } from "../websites/website-service.js";
import { currentUser } from "./authenticate.js";
import { listEnvelope } from "./pagination.js";
import { COMMON_ERRORS, ValidationErrorBody } from "./schema-types.js";
import {
  CreateWebsiteBody,
  ListWebsitesQuery,
  UpdateWebsiteBody,
  WebsiteDeleted,
  WebsiteEnvelope,
  WebsiteList,
} from "./website-schemas.js";

export const IdParams = Type.Object({
  id: Type.String({ description: "The website id (a positive integer)." }),
});
const tags = ["Websites"];
const security = [{ bearerAuth: [] }];

export interface WebsiteRoutesOptions {
  websites: WebsiteService;
  publicUrl: string | null;
}

export async function websiteRoutes(scope: FastifyInstance, options: WebsiteRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { websites, publicUrl } = options;

  app.get(
    "/websites",
    {
      schema: {
        tags,
        security,
        summary: "List websites",
        querystring: ListWebsitesQuery,
        response: { 200: WebsiteList, 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const query = request.query;
      const perPage = query.per_page ?? 10;
      const page = query.page ?? 1;
      const { items, total } = await websites.list(currentUser(request).id, {
        search: query.search,
        sortBy: query.sort_by ?? "id",
        sort: query.sort ?? "desc",
        perPage,
        page,
      });
      return listEnvelope(request, publicUrl, items.map(toResource), total, { page, perPage });
    },
  );

  app.get(
    "/websites/:id",
    {
      schema: {
        tags,
        security,
        summary: "Read a website",
        params: IdParams,
        response: { 200: WebsiteEnvelope(200), ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const website = await websites.get(currentUser(request).id, parseId(request.params.id));
      return { data: toResource(website), status: 200 as const };
    },
  );

  app.post(
    "/websites",
    {
      schema: {
        tags,
        security,
        summary: "Create a website",
        consumes: ["application/x-www-form-urlencoded", "application/json"],
        body: CreateWebsiteBody,
        response: { 201: WebsiteEnvelope(201), 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request, reply) => {
      const website = await websites.create(currentUser(request).id, {
        domain: request.body.domain,
        ...toSettings(request.body),
      });
      return reply.code(201).send({ data: toResource(website), status: 201 as const });
    },
  );

  app.put(
    "/websites/:id",
    {
      schema: {
        tags,
        security,
        summary: "Update a website",
        consumes: ["application/x-www-form-urlencoded", "application/json"],
        params: IdParams,
        body: UpdateWebsiteBody,
        response: { 200: WebsiteEnvelope(200), 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const id = parseId(request.params.id);
      const website = await websites.update(currentUser(request).id, id, toSettings(request.body));
      return { data: toResource(website), status: 200 as const };
    },
  );

  app.delete(
    "/websites/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a website and all its statistics",
        params: IdParams,
        response: { 200: WebsiteDeleted, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const id = parseId(request.params.id);
      await websites.delete(currentUser(request).id, id);
      return { id, object: "website" as const, deleted: true as const, status: 200 as const };
    },
  );
}

/**
 * A path id: a positive integer in its one decimal form, no sign, no leading zero, within
 * the safe integer range. Anything else (`01`, `1e3`, `%zz`) is a 404, as a missing id is,
 * so each website has exactly one URL.
 */
export function parseId(raw: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw new NotFoundError();
  return Number(raw);
}

/** The settings fields of a create or update body, in the service's terms. */
function toSettings(body: Static<typeof UpdateWebsiteBody>): WebsiteSettings {
  return {
    privacy: body.privacy,
    password: body.password,
    email: body.email,
    excludeBots: body.exclude_bots,
    excludeDatacenters: body.exclude_datacenters,
    excludeParams: body.exclude_params,
    excludeIps: body.exclude_ips,
    timezone: body.timezone,
  };
}

function toResource(website: WebsiteRecord) {
  return {
    id: website.id,
    domain: website.domain,
    domain_unicode: unicodeDomain(website.domain),
    privacy: website.privacy,
    password: website.passwordHash !== null,
    email: website.email,
    exclude_bots: website.excludeBots,
    exclude_datacenters: website.excludeDatacenters,
    exclude_params: website.excludeParams,
    exclude_ips: website.excludeIps,
    timezone: website.timezone,
    created_at: formatTimestamp(website.createdAt),
    updated_at: formatTimestamp(website.updatedAt),
  };
}
