// The lists of statistics a dashboard shows, in order: which statistic, its title, the
// heading of its values and what its counts count.

import type { StatName } from "../stats/catalog.js";

export interface ListSpec {
  stat: StatName;
  title: string;
  /** Heading of the value column. */
  column: string;
  /** What the count column counts. */
  counts: "Visitors" | "Pageviews" | "Visits" | "Events";
}

export const LISTS: readonly ListSpec[] = [
  { stat: "page", column: "Page", title: "Pages", counts: "Pageviews" },
  { stat: "landing_page", column: "Page", title: "Landing pages", counts: "Visits" },
  { stat: "exit_page", column: "Page", title: "Exit pages", counts: "Visits" },
  { stat: "referrer", column: "Source", title: "Referrers", counts: "Visits" },
  { stat: "campaign", column: "Campaign", title: "Campaigns", counts: "Visits" },
  { stat: "country", column: "Country", title: "Countries", counts: "Visitors" },
  { stat: "city", column: "City", title: "Cities", counts: "Visitors" },
  { stat: "continent", column: "Continent", title: "Continents", counts: "Visitors" },
  { stat: "browser", column: "Browser", title: "Browsers", counts: "Visitors" },
  { stat: "os", column: "System", title: "Operating systems", counts: "Visitors" },
  { stat: "device", column: "Device", title: "Devices", counts: "Visitors" },
  { stat: "resolution", column: "Resolution", title: "Screen resolutions", counts: "Visitors" },
  { stat: "language", column: "Language", title: "Languages", counts: "Visitors" },
  { stat: "event", column: "Event", title: "Events", counts: "Events" },
];
