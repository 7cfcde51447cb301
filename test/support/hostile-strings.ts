// Strings that break naive SQL, escaping, JSON or byte handling: quotes, backslashes, NUL and
// control characters, wildcards, placeholders, Unicode and a long one. Every store must keep
// them as data, unchanged.

export const HOSTILE = [
  "it's",
  "''",
  "\\",
  "ends with a backslash \\",
  "\\'; DROP TABLE events_local; --",
  "'; DROP DATABASE system; --",
  "' OR 1=1 --",
  "\\x41\\0\\n (escapes as text)",
  "nul \u0000 inside",
  "\u0000",
  "control \u0001\u0007\b\t\n\v\f\r\u001b\u001f\u007f",
  'double "quotes" and `backticks`',
  "{name:String} $1 ? :name",
  "100%_off",
  "%",
  "_",
  "unicode: äöü ß 日本語 עברית 🎉 e\u0301",
  "order \uFFFD (after every other character in UTF-16, before 😀 in UTF-8)",
  "order 😀",
  "order \uE000",
  "line\r\nbreak",
  "/*comment*/ SELECT 1",
  "a".repeat(2048),
];
