// Answers a request for a website's dashboard, wherever it is served (the owner's page in
// the web app, the public, private or password page of the website): reads the view from
// the query in the website's own days, then sends the dashboard, one list in full, or that
// list as CSV. A part of the query that cannot be read is shown at its default, said why,
// with a 422.

import type { FastifyReply } from "fastify";
import { Type } from "typebox";
import type { Clock } from "../clock.js";
import { CSV_CONTENT_TYPE, statsCsv } from "../stats/stats-csv.js";
import { zoneRule } from "../stats/time-zone.js";
import type { WebsiteRecord } from "../storage/ports.js";
import { type DashboardQuery, readDashboardState, repeatedPart } from "./dashboard-state.js";
import { presets } from "./date-range.js";
import { sendHtml } from "./html-response.js";
import {
  allRows,
  buildDetailsModel,
  buildPageModel,
  type DashboardServices,
  type KeptOut,
} from "./page-model.js";
import { detailsPage, type StatsViewOptions, statsPage } from "./stats-view.js";

/**
 * A part of the query: any text, or the list of them when the URL repeats it. No length or
 * count is refused here, where it would fail the whole page (a 400): dashboard-state.ts reads
 * each part, shows one it cannot read at its default and says why. The request line's own
 * limit (Node's 16 KB of headers) bounds what is read.
 */
const Part = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]));

/** The query of a dashboard page (dashboard-state.ts reads it). */
export const DashboardQuerySchema = Type.Object({
  from: Part,
  to: Part,
  filters: Part,
  details: Part,
  search: Part,
  page: Part,
  unit: Part,
  compare: Part,
  compare_from: Part,
  compare_to: Part,
  /** `csv`: the list opened in full as CSV (every row). */
  format: Part,
});

export async function sendDashboard(
  reply: FastifyReply,
  services: DashboardServices & { clock: Clock },
  website: WebsiteRecord,
  query: DashboardQuery & { format?: string | readonly string[] | undefined },
  view: Omit<StatsViewOptions, "presets" | "error">,
  /** The owner's view: the hits dropped over its range (null on a stats page). */
  keptOut: KeptOut | null = null,
) {
  // The website's days: today and the presets are its local ones.
  const now = zoneRule(website.timezone).wallClock(services.clock.now());
  const { state, errors } = readDashboardState(query, now);
  // A repeated format is never "csv": the page itself, saying why.
  if (Array.isArray(query.format)) errors.push(repeatedPart("format", query.format.length));
  const options: StatsViewOptions = { ...view, presets: presets(now), error: errors.join(" ") || undefined };
  const status = errors.length > 0 ? 422 : 200;
  if (state.details === null) {
    return sendHtml(
      reply,
      status,
      statsPage(await buildPageModel(services, website, state, keptOut), options),
    );
  }
  const details = { ...state, details: state.details };
  if (query.format === "csv" && errors.length === 0) {
    const name = `${website.domain}-${details.details.list.stat}-${state.range.from}-${state.range.to}.csv`;
    return reply
      .header("content-type", CSV_CONTENT_TYPE)
      .header("content-disposition", `attachment; filename="${name}"`)
      .send(statsCsv(await allRows(services, website, details)));
  }
  return sendHtml(reply, status, detailsPage(await buildDetailsModel(services, website, details), options));
}
