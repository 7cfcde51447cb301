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
import { type DashboardQuery, readDashboardState } from "./dashboard-state.js";
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

const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** The query of a dashboard page (dashboard-state.ts reads it). */
export const DashboardQuerySchema = Type.Object({
  from: Text(10),
  to: Text(10),
  filters: Text(8192),
  details: Text(64),
  search: Text(2048),
  page: Text(12),
  unit: Text(8),
  compare: Text(16),
  compare_from: Text(10),
  compare_to: Text(10),
  /** `csv`: the list opened in full as CSV (every row). */
  format: Text(8),
});

export async function sendDashboard(
  reply: FastifyReply,
  services: DashboardServices & { clock: Clock },
  website: WebsiteRecord,
  query: DashboardQuery & { format?: string | undefined },
  view: Omit<StatsViewOptions, "presets" | "error">,
  /** The owner's view: the hits dropped over its range (null on a stats page). */
  keptOut: KeptOut | null = null,
) {
  // The website's days: today and the presets are its local ones.
  const now = zoneRule(website.timezone).wallClock(services.clock.now());
  const { state, errors } = readDashboardState(query, now);
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
