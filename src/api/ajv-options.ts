// How every request body, query and path is validated: the framework's Ajv with all errors
// reported at once, the `x-rule` keyword and a faster `date-time` check (same answers). One
// definition, for the routes (app.ts) and for the import threads, which read their bodies
// themselves (import-body.ts).

import { addFastDateTime } from "./date-time-format.js";
import { addRuleKeyword } from "./rule-keyword.js";

export const AJV_OPTIONS = {
  customOptions: { allErrors: true },
  plugins: [addRuleKeyword],
  onCreate: addFastDateTime,
};
