// How every request body, query and path is validated: the framework's Ajv with all errors
// reported at once and the `x-rule` keyword. One definition, for the routes (app.ts) and
// for the import threads, which read their bodies themselves (import-body.ts).

import { addRuleKeyword } from "./rule-keyword.js";

export const AJV_OPTIONS = { customOptions: { allErrors: true }, plugins: [addRuleKeyword] };
