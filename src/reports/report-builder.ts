// Gathers the numbers of one user's report through the statistics service, exactly as the
// API would answer them: per website, visitors and pageviews of the period and the one
// before, top pages and top referrers, and the link to its stats page.
//
// "Visitors" of a period is the sum of the daily unique visitors, i.e. distinct (day,
// visitor) pairs: the contract's unique visitors over a range, and what the `visitors`
// statistic adds up to. Someone who came on Monday and Tuesday counts twice.

import { NotFoundError } from "../errors.js";
import type { StatsRow } from "../stats/stats-query.js";
import type { StatsService } from "../stats/stats-service.js";
import type { ReportRecipient } from "../storage/ports.js";
import type { DayRange, ReportPeriod } from "./report-period.js";

/** How many pages and referrers a report lists per website. */
export const TOP_ROWS = 5;
/** Enough rows for every day of a month in one page. */
const DAYS_PER_PAGE = 100;

export interface Comparison {
  current: number;
  previous: number;
  /** Percentage change, rounded to an integer; null when the previous period had none. */
  change: number | null;
}

export interface WebsiteReport {
  /** As stored (ASCII): the key in links; the renderings show it in Unicode. */
  domain: string;
  /** The website's time zone: the period's dates are its local days. */
  zone: string;
  url: string;
  visitors: Comparison;
  pageviews: Comparison;
  topPages: StatsRow[];
  /** `value` is the referrer host, "" for direct visits. */
  topReferrers: StatsRow[];
}

export interface UserReport {
  user: ReportRecipient["user"];
  period: ReportPeriod;
  websites: WebsiteReport[];
}

export class ReportBuilder {
  /** `publicUrl`: the server's public base URL, without a trailing slash. */
  constructor(
    private readonly stats: StatsService,
    private readonly publicUrl: string,
  ) {}

  async build(recipient: ReportRecipient, period: ReportPeriod): Promise<UserReport> {
    const websites: WebsiteReport[] = [];
    for (const website of recipient.websites) {
      try {
        websites.push(await this.website(recipient.user.id, website, period));
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error; // deleted since the list was read
      }
    }
    return { user: recipient.user, period, websites };
  }

  private async website(
    userId: number,
    website: { id: number; domain: string },
    period: ReportPeriod,
  ): Promise<WebsiteReport> {
    const stats = await this.stats.forWebsite(userId, website.id);
    const read = (name: string, range: DayRange, perPage: number) =>
      stats.read({
        name,
        ...range,
        sortBy: "count",
        sort: "desc",
        perPage,
        page: 1,
      });
    const total = async (name: string, range: DayRange) =>
      (await read(name, range, DAYS_PER_PAGE)).rows.reduce((sum, row) => sum + row.count, 0);
    const compare = async (name: string): Promise<Comparison> => {
      const current = await total(name, period.current);
      const previous = await total(name, period.previous);
      return { current, previous, change: percentChange(current, previous) };
    };
    return {
      domain: website.domain,
      zone: stats.zone,
      url: `${this.publicUrl}/${website.domain}`,
      visitors: await compare("visitors"),
      pageviews: await compare("pageviews"),
      topPages: (await read("page", period.current, TOP_ROWS)).rows,
      topReferrers: (await read("referrer", period.current, TOP_ROWS)).rows,
    };
  }
}

export function percentChange(current: number, previous: number): number | null {
  if (previous === 0) return null;
  return Math.round(((current - previous) / previous) * 100);
}
