// The parameters every statistics route shares: the range of days (the website's time zone) and the filters
// (src/stats/stats-filter.ts), described once for the API document.

import { Type } from "typebox";
import { FILTER_DIMENSIONS, FILTER_SYNTAX } from "../stats/stats-filter.js";

export const FromParam = Type.String({
  "x-rule": "day",
  description: "First day (of the website's time zone), YYYY-MM-DD.",
});
export const ToParam = Type.String({
  "x-rule": "day",
  description: "Last day (inclusive), YYYY-MM-DD; not before from.",
});

export const FiltersParam = Type.Optional(
  Type.String({
    maxLength: 8192,
    description: `Count only the events every condition holds for: ${FILTER_SYNTAX}. Dimensions: ${FILTER_DIMENSIONS.map(
      (dimension) => `\`${dimension.name}\` ${dimension.description}`,
    ).join(
      ", ",
    )}. Values are written as the statistics list them (\`country==US:United States\`); \`==\` compares exactly, \`~\` ignores case. Only visits have a landing page and only custom events a name; \`!=\` and \`!~\` hold wherever \`==\` and \`~\` do not. For a unique-visitor statistic: the visitors with a matching event that day. Example: \`page==/pricing;country!=US:United States\`.`,
  }),
);
