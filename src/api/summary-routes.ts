// The summaries of a website's traffic beside its statistics: the top-line totals of a range
// compared with another (GET /api/v1/stats/{id}/totals), pageviews and visitors over time
// (.../timeseries), who is on it now (.../realtime), and what collection kept out of them
// (.../dropped).

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { COUNTED_DROP_REASONS } from "../ingest/hit.js";
import { MAX_LISTED_DAYS } from "../stats/day-rule.js";
import { checkDroppedRange, type DroppedHitsService } from "../stats/dropped-hits.js";
import type { RealtimeService } from "../stats/realtime.js";
import { checkFilters, checkRange } from "../stats/stats-service.js";
import {
  checkSeriesLength,
  SERIES_INTERVALS,
  SERIES_MAX_DAYS,
  type SeriesInterval,
  type TimeSeriesService,
} from "../stats/time-series.js";
import { COMPARISONS, type Comparison, comparedRange, type TotalsService } from "../stats/totals.js";
import { currentUser } from "./authenticate.js";
import { COMMON_ERRORS, stringEnum, ValidationErrorBody } from "./schema-types.js";
import { FiltersParam, FromParam, ToParam } from "./stats-params.js";
import { IdParams, parseId } from "./website-routes.js";

const SeriesQueryString = Type.Object({
  from: FromParam,
  to: ToParam,
  interval: Type.Optional(
    stringEnum(SERIES_INTERVALS, {
      default: "day",
      description: `One point per hour (ranges of at most ${SERIES_MAX_DAYS.hour} days), day (${SERIES_MAX_DAYS.day} days), week (Monday to Sunday) or calendar month (${SERIES_MAX_DAYS.month} days each).`,
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
      visits: Type.Integer({ description: "Visits that began in the period." }),
    }),
    { description: "Every period of the range in time order, empty ones with zeros." },
  ),
  interval: stringEnum(SERIES_INTERVALS),
  status: Type.Literal(200),
});

const TotalsQueryString = Type.Object({
  from: FromParam,
  to: ToParam,
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

const Ratio = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const TotalsNumbers = Type.Object({
  visitors: Type.Integer({ description: "Unique visitors of each day, added up." }),
  visits: Type.Integer({ description: "Visits (a visitor's day, split by 30 minutes without a pageview)." }),
  pageviews: Type.Integer(),
  events: Type.Integer({ description: "Custom events." }),
  views_per_visit: Ratio("Pageviews of the visits per visit (two decimals); null without visits."),
  bounce_rate: Ratio("Bounced visits per 100 visits (one decimal); null without visits."),
  visit_duration: Ratio("Mean visit duration in whole seconds; null without visits."),
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
          Object.fromEntries(
            Object.keys(TotalsNumbers.properties).map((key) => [
              key,
              Type.Union([Type.Number(), Type.Null()]),
            ]),
          ),
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

const DROP_MEANINGS: Record<(typeof COUNTED_DROP_REASONS)[number], string> = {
  bot: "from a bot or automated browser (when the website excludes bots)",
  excluded_ip: "from an address the website excludes",
  spam: "whose referrer is a listed spammer's host (ANALYTICS_REFERRER_SPAM)",
  datacenter: "from a data-centre network (when the website excludes data centres)",
  invalid: "a custom event whose name, value or unit could not be stored",
  rate_limited:
    "from an address over the per-address allowance (counted when the website was known without a lookup: while the site took another hit in the last 10 seconds)",
  unavailable:
    "refused while the event store could not take writes and the write buffer was full, or while the metadata store could not look the website up again (counted when this server had looked it up before)",
};

const DropNumbers = Type.Object({
  total: Type.Integer({ description: "Every hit dropped for the website." }),
  ...Object.fromEntries(
    COUNTED_DROP_REASONS.map((reason) => [
      reason,
      Type.Integer({ description: `Hits ${DROP_MEANINGS[reason]}.` }),
    ]),
  ),
});

const DroppedQueryString = Type.Object({ from: FromParam, to: ToParam });

const DroppedBody = Type.Object({
  data: Type.Object({
    days: Type.Array(Type.Intersect([Type.Object({ day: Type.String() }), DropNumbers]), {
      description: "Every day of the range in order, zeros where nothing was dropped.",
    }),
    totals: DropNumbers,
  }),
  status: Type.Literal(200),
});

export interface SummaryRoutesOptions {
  totals: TotalsService;
  series: TimeSeriesService;
  realtime: RealtimeService;
  dropped: DroppedHitsService;
}

export async function summaryRoutes(scope: FastifyInstance, options: SummaryRoutesOptions) {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/stats/:id/timeseries",
    {
      config: {
        checks: (query, valid) => [
          () => valid("from", "to") && checkRange(query.from as string, query.to as string),
          () =>
            valid("from", "to", "interval") &&
            checkSeriesLength(
              query.from as string,
              query.to as string,
              (query.interval ?? "day") as SeriesInterval,
            ),
          () => valid("filters") && checkFilters(query.filters),
        ],
      },
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "Pageviews, visitors and visits over time",
        description:
          "Pageviews, unique visitors and visits per hour, day, week or month of the range, every period listed in order with zeros where nothing happened; filtered like any statistic.",
        params: IdParams,
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
      config: {
        checks: (query, valid) => [
          () => valid("from", "to") && checkRange(query.from as string, query.to as string),
          () =>
            valid("from", "to", "compare", "compare_from", "compare_to") &&
            comparedRange({
              from: query.from as string,
              to: query.to as string,
              compare: (query.compare ?? "previous") as Comparison,
              compareFrom: query.compare_from,
              compareTo: query.compare_to,
            }),
          () => valid("filters") && checkFilters(query.filters),
        ],
      },
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "The top-line numbers of a range, and the change from another",
        params: IdParams,
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
        params: IdParams,
        response: { 200: RealtimeBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const data = await options.realtime.read(currentUser(request).id, parseId(request.params.id));
      return { data, status: 200 as const };
    },
  );

  app.get(
    "/stats/:id/dropped",
    {
      config: {
        checks: (query, valid) => [
          () => valid("from", "to") && checkDroppedRange(query.from as string, query.to as string),
        ],
      },
      schema: {
        tags: ["Statistics"],
        security: [{ bearerAuth: [] }],
        summary: "The hits collection dropped, per day and reason",
        description: `The hits POST /api/event dropped for the website, per day of its time zone and reason, and the range's totals. A hit for no known website, or one whose body cannot be read, is no website's and is not counted. Hits this server dropped are counted at once; another server's within 5 seconds. A range lists at most ${MAX_LISTED_DAYS} days.`,
        params: IdParams,
        querystring: DroppedQueryString,
        response: { 200: DroppedBody, 422: ValidationErrorBody, ...COMMON_ERRORS },
      },
    },
    async (request) => {
      const { from, to } = request.query;
      const data = await options.dropped.read(currentUser(request).id, parseId(request.params.id), from, to);
      return { data, status: 200 as const };
    },
  );
}
