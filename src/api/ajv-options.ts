// How every request body, query and path is validated: the framework's Ajv with all errors
// reported at once, no scalar taken from an array, lengths in UTF-16 code units, the
// `x-rule` keyword and a faster `date-time` check (same answers). One definition, for the
// routes (app.ts) and for the import threads, which read their bodies themselves
// (import-body.ts: JSON alone, so without the coercion of form strings).

import { addFastDateTime } from "./date-time-format.js";
import { addRuleKeyword } from "./rule-keyword.js";

/**
 * Ajv's console, less its warning that `unicode` is deprecated: the option still works (Ajv
 * 8 reads it in limitLength), and the warning was printed, outside the JSON log, every time a
 * server or an import thread started.
 */
const AJV_LOGGER = {
  log: console.log,
  warn: (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("DEPRECATED: option unicode.")) return;
    console.warn(...args);
  },
  error: console.error,
};

export const AJV_OPTIONS = {
  // Form strings are still coerced to numbers ("2" -> 2), but not the framework's default
  // "array" coercion, which took a one-element array for its element: {"privacy":[0]} as 0.
  // A maxLength counts UTF-16 code units (unicode: false), as every limit does (field-rule.ts).
  customOptions: { allErrors: true, coerceTypes: true, unicode: false, logger: AJV_LOGGER },
  plugins: [addRuleKeyword],
  onCreate: addFastDateTime,
};
