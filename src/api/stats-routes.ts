// GET /api/v1/stats/{id}: one statistic of one website over a range of UTC days, of all its
// events or those the filters select, in the original product's flat paginator shape or as
// CSV (every row).

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { STAT_NAMES, STATS } from "../stats/catalog.js";
import type { RealtimeService } from "../stats/realtime.js";
import { FILTER_DIMENSIONS, FILTER_SYNTAX } from "../stats/stats-filter.js";
import { ALL_ROWS, type StatsService } from "../stats/stats-service.js";
import { MAX_HOURLY_DAYS, SERIES_INTERVALS, type TimeSeriesService } from "../stats/time-series.js";
import { COMPARISONS, type TotalsService } from "../stats/totals.js";
import { currentUser } from "./authenticate.js";
import { PageUrls, pageWindow } from "./pagination.js";
import { COMMON_ERRORS, PageParam, PerPageParam, stringEnum, ValidationErrorBody } from "./schema-types.js";
import { CSV_CONTENT_TYPE, statsCsv } from "./stats-csv.js";
import { parseId } from "./website-routes.js";

const FiltersParam = Type.Optional(
  Type.String({
    maxLength: 8192,
    description: `Count only the events every condition holds for: ${FILTER_SYNTAX}. Dimensions: ${FILTER_DIMENSIONS.map(
      (dimension) => `\`${dimension.name}\` ${dimension.description}`,
    ).join(
      ", ",
    )}. Values are written as the statistics list them (\`country==US:United States\`); \`==\` compares exactly, \`~\` ignores case. Only visits have a landing page and only custom events a name; \`!=\` and \`!~\` hold wherever \`==\` and \`~\` do not. For a unique-visitor statistic: the visitors with a matching event that day. Example: \`page==/pricing;country!=US:United States\`.`,
  }),
);

const StatsQueryString = Type.Object({
  name: stringEnum(STAT_NAMES, {
    description: `The statistic: ${STATS.map((stat) => `\`${stat.name}\` ${stat.description}`).join(" ")}`,
  }),
  from: Type.String({ "x-rule": "day", description: "First UTC day, YYYY-MM-DD." }),
  to: Type.String({ "x-rule": "day", description: "Last UTC day (inclusive), YYYY-MM-DD; not before from." }),
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
  data: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }), {
    description: "Values with their counts; ties are ordered by value.",
  }),
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

const SeriesQueryString = Type.Object({
  from: Type.String({ "x-rule": "day", description: "First UTC day, YYYY-MM-DD." }),
  to: Type.String({ "x-rule": "day", description: "Last UTC day (inclusive), YYYY-MM-DD; not before from." }),
  interval: Type.Optional(
    stringEnum(SERIES_INTERVALS, {
      default: "day",
      description: `One point per hour (ranges of at most ${MAX_HOURLY_DAYS} days), day, week (Monday to Sunday) or calendar month.`,
    }),
  ),
  filters: FiltersParam,
});

const SeriesBody = Type.Object({
  data: Type.Array(
    Type.Object({
      period: Type.String({
        description:
          "`2026-04-01T09` for an hour, `2026-04-01` for a day, `2026-03-30/2026-04-05` for a week or month.",
      }),
      from: Type.String({ description: "The first day the point covers within the range." }),
      to: Type.String({ description: "The last day the point covers within the range." }),
      pageviews: Type.Integer(),
      visitors: Type.Integer({ description: "Unique visitors of each day, added up over the point's days." }),
    }),
    { description: "Every period of the range in time order, empty ones with zeros." },
  ),
  interval: stringEnum(SERIES_INTERVALS),
  status: Type.Literal(200),
});

const TotalsQueryString = Type.Object({
  from: Type.String({ "x-rule": "day", description: "First UTC day, YYYY-MM-DD." }),
  to: Type.String({ "x-rule": "day", description: "Last UTC day (inclusive), YYYY-MM-DD; not before from." }),
  compare: Type.Optional(
    stringEnum(COMPARISONS, {
      default: "previous",
      description:
        "The range to compare with: `previous`, the days of equal number just before; `year`, the same days a year before (29 February: the 28th); `range`, compare_from to compare_to; `none`.",
    }),
  ),
  compare_from: Type.Optional(
    Type.String({ "x-rule": "day", description: "With compare=range: its first day." }),
  ),
  compare_to: Type.Optional(
    Type.String({ "x-rule": "day", description: "With compare=range: its last day." }),
  ),
  filters: FiltersParam,
});

const TotalsNumbers = Type.Object({
  visitors: Type.Integer({ description: "Unique visitors of each day, added up." }),
  pageviews: Type.Integer(),
  events: Type.Integer({ description: "Custom events." }),
});

const TotalsBody = Type.Object({
  data: Type.Object({
    from: Type.String(),
    to: Type.String(),
    totals: TotalsNumbers,
    comparison: Type.Union([
      Type.Object({
        from: Type.String(),
        to: Type.String(),
        totals: TotalsNumbers,
        change: Type.Object(
          {
            visitors: Type.Union([Type.Number(), Type.Null()]),
            pageviews: Type.Union([Type.Number(), Type.Null()]),
            events: Type.Union([Type.Number(), Type.Null()]),
          },
          {
            description:
              "From the compared range to this one, in percent (one decimal); null where it had none.",
          },
        ),
      }),
      Type.Null(),
    ]),
  }),
  status: Type.Literal(200),
});

const RealtimeBody = Type.Object({
  data: Type.Object({
    visitors: Type.Integer({ description: "Unique visitors with a pageview in the last 5 minutes." }),
    pageviews: Type.Array(
      Type.Object({
        minute: Type.String({ description: "The minute's start, ISO-8601 UTC." }),
        count: Type.Integer(),
      }),
      {
        description:
          "Pageviews in each of the last 30 minutes, oldest first; the last is the current minute so far.",
      },
    ),
  }),
  status: Type.Literal(200),
});

export interface StatsRoutesOptions {
  stats: StatsService;
  totals: TotalsService;
  series: TimeSeriesService;
  realtime: RealtimeService;
  publicUrl: string | null;
}

export async function statsRoutes(scope: FastifyInstance, options: StatsRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/stats/:id",
    {
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "Read a statistic of a website",
        params: Type.Object({ id: Type.String({ description: "The website id." }) }),
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

  app.get(
    "/stats/:id/timeseries",
    {
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "Pageviews and visitors over time",
        description:
          "Pageviews and unique visitors per hour, day, week or month of the range, every period listed in order with zeros where nothing happened; filtered like any statistic.",
        params: Type.Object({ id: Type.String({ description: "The website id." }) }),
        querystring: SeriesQueryString,
        response: { 200: SeriesBody, 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const query = request.query;
      const interval = query.interval ?? "day";
      const data = await options.series.read(currentUser(request).id, parseId(request.params.id), {
        from: query.from,
        to: query.to,
        interval,
        filters: query.filters,
      });
      return { data, interval, status: 200 as const };
    },
  );

  app.get(
    "/stats/:id/totals",
    {
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "The top-line numbers of a range, and the change from another",
        params: Type.Object({ id: Type.String({ description: "The website id." }) }),
        querystring: TotalsQueryString,
        response: { 200: TotalsBody, 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const query = request.query;
      const data = await options.totals.read(currentUser(request).id, parseId(request.params.id), {
        from: query.from,
        to: query.to,
        compare: query.compare ?? "previous",
        compareFrom: query.compare_from,
        compareTo: query.compare_to,
        filters: query.filters,
      });
      return { data, status: 200 as const };
    },
  );

  app.get(
    "/stats/:id/realtime",
    {
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "Who is on a website now",
        description:
          "Unique visitors with a pageview in the last 5 minutes, and pageviews per minute over the last 30, zero-filled. Hits this server has answered are counted, including those not written yet; another server's are at most its flush interval behind.",
        params: Type.Object({ id: Type.String({ description: "The website id." }) }),
        response: { 200: RealtimeBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const data = await options.realtime.read(currentUser(request).id, parseId(request.params.id));
      return { data, status: 200 as const };
    },
  );
}
