// GET /api/v1/stats/{id}: one statistic of one website over a range of days, of all its
// events or those the filters select, in the original product's flat paginator shape or as
// CSV (every row).

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { RATIOS, STAT_NAMES, STATS } from "../stats/catalog.js";
import { CSV_CONTENT_TYPE, statsCsv } from "../stats/stats-csv.js";
import { ALL_ROWS, checkFilters, checkRange, type StatsService } from "../stats/stats-service.js";
import { currentUser } from "./authenticate.js";
import { PageUrls, pageWindow } from "./pagination.js";
import { COMMON_ERRORS, PageParam, PerPageParam, stringEnum, ValidationErrorBody } from "./schema-types.js";
import { FiltersParam, FromParam, ToParam } from "./stats-params.js";
import { IdParams, parseId } from "./website-routes.js";

const StatsQueryString = Type.Object({
  name: stringEnum(STAT_NAMES, {
    description: `The statistic: ${[...STATS, ...RATIOS].map((stat) => `\`${stat.name}\` ${stat.description}`).join(" ")}`,
  }),
  from: FromParam,
  to: ToParam,
  filters: FiltersParam,
  search: Type.Optional(
    Type.String({ maxLength: 255, description: "Case-insensitive substring of the value." }),
  ),
  search_by: Type.Optional(
    stringEnum(["value", "url"], { default: "url", description: "Both search the value." }),
  ),
  sort_by: Type.Optional(stringEnum(["count", "value"], { default: "count" })),
  sort: Type.Optional(stringEnum(["desc", "asc"], { default: "desc" })),
  per_page: PerPageParam,
  page: PageParam,
  format: Type.Optional(
    stringEnum(["json", "csv"], {
      default: "json",
      description:
        "`csv`: every row (per_page and page do not apply) as text/csv with a `value,count` header, for spreadsheets; a value beginning with =, +, -, @, a tab or a carriage return gets a leading ' so no spreadsheet runs it as a formula.",
    }),
  ),
});

const Nullable = (type: ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>) =>
  Type.Union([type, Type.Null()]);

const StatsPageBody = Type.Object({
  current_page: Type.Integer(),
  data: Type.Array(
    Type.Object({
      value: Type.String(),
      count: Type.Number({
        description: `An integer, except for the ratios with decimals (${RATIOS.filter(
          (ratio) => ratio.decimals > 0,
        )
          .map((ratio) => `\`${ratio.name}\``)
          .join(", ")}).`,
      }),
    }),
    {
      description: "Values with their counts; ties are ordered by value.",
    },
  ),
  first_page_url: Type.String(),
  from: Nullable(Type.Integer()),
  last_page: Type.Integer(),
  last_page_url: Type.String(),
  next_page_url: Nullable(Type.String()),
  path: Type.String(),
  per_page: Type.Integer(),
  prev_page_url: Nullable(Type.String()),
  to: Nullable(Type.Integer()),
  total: Type.Integer({ description: "Number of distinct values." }),
  status: Type.Literal(200),
});

export interface StatsRoutesOptions {
  stats: StatsService;
  publicUrl: string | null;
}

export async function statsRoutes(scope: FastifyInstance, options: StatsRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/stats/:id",
    {
      config: {
        checks: (query, valid) => [
          () => valid("from", "to") && checkRange(query.from as string, query.to as string),
          () => valid("filters") && checkFilters(query.filters),
        ],
      },
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "Read a statistic of a website",
        params: IdParams,
        querystring: StatsQueryString,
        response: {
          200: {
            description: "One page of the statistic, or with format=csv every row as CSV.",
            content: {
              "application/json": { schema: StatsPageBody },
              "text/csv": { schema: Type.String({ description: "value,count then a line per value." }) },
            },
          },
          422: ValidationErrorBody,
          ...COMMON_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const csv = query.format === "csv";
      const perPage = csv ? ALL_ROWS : (query.per_page ?? 10);
      const page = csv ? 1 : (query.page ?? 1);
      const websiteId = parseId(request.params.id);
      const result = await options.stats.read(currentUser(request).id, websiteId, {
        name: query.name,
        from: query.from,
        to: query.to,
        filters: query.filters,
        search: query.search,
        sortBy: query.sort_by ?? "count",
        sort: query.sort ?? "desc",
        perPage,
        page,
      });
      if (csv) {
        // Every part of the name was validated: an id, a catalog name, two dates.
        const file = `stats-${websiteId}-${query.name}-${query.from}-${query.to}.csv`;
        return reply
          .header("content-type", CSV_CONTENT_TYPE)
          .header("content-disposition", `attachment; filename="${file}"`)
          .send(statsCsv(result.rows));
      }
      const window = pageWindow(result.total, page, perPage, result.rows.length);
      const urls = new PageUrls(request, options.publicUrl);
      return {
        current_page: page,
        data: result.rows,
        first_page_url: urls.page(1),
        from: window.from,
        last_page: window.lastPage,
        last_page_url: urls.page(window.lastPage),
        next_page_url: page < window.lastPage ? urls.page(page + 1) : null,
        path: urls.path,
        per_page: perPage,
        prev_page_url: page > 1 ? urls.page(page - 1) : null,
        to: window.to,
        total: result.total,
        status: 200 as const,
      };
    },
  );
}
