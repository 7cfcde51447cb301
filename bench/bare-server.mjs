// The baseline of the collection benchmark: a bare node:http server that does the least any
// collection endpoint must do (read the body, parse it as JSON, answer 202 with no body) and
// nothing else. The collection endpoint's throughput is reported as a ratio of this one's,
// measured on the same core with the same load.
//
//   node bench/bare-server.mjs [--port 0] [--host 127.0.0.1]
//
// Prints `Server listening at http://HOST:PORT` once ready; SIGTERM or SIGINT stops it.

import http from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { port: { type: "string", default: "0" }, host: { type: "string", default: "127.0.0.1" } },
});

let parsed = 0;
let invalid = 0;

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
      parsed += 1;
    } catch {
      invalid += 1;
    }
    response.statusCode = 202;
    response.end();
  });
});
server.keepAliveTimeout = 72_000;

server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address();
  console.log(`Server listening at http://${address}:${port}`);
});

const stop = () => {
  server.close(() => {
    console.log(JSON.stringify({ parsed, invalid }));
    process.exit(0);
  });
  server.closeAllConnections();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
