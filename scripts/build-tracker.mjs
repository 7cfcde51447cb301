// Minifies the compiled tracker (dist/tracker/tracker.js) into dist/tracker/script.js,
// the file the server serves. Run by `npm run build` after the TypeScript compiler.

import fs from "node:fs";
import { minify } from "terser";

const input = new URL("../dist/tracker/tracker.js", import.meta.url);
const output = new URL("../dist/tracker/script.js", import.meta.url);
const result = await minify(fs.readFileSync(input, "utf8"), {
  compress: { passes: 2 },
  mangle: true,
  format: { comments: false },
});
fs.writeFileSync(output, `${result.code}\n`);
