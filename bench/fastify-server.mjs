// A second baseline between the bare node:http server and the product: Fastify set up as
// the product sets it up for POST /api/event (same Fastify, logger at warn without request
// logging, trusted X-Forwarded-For, any body read as text and JSON-parsed, the same body
// schema validated with attachValidation, a CORS header, 202 with no body), and nothing
// else: no pipeline, no buffer, no store. Product / this = what the ingest work costs;
// this / bare = what the framework costs.
//
//   node bench/fastify-server.mjs [--port 0] [--host 127.0.0.1]
//
// Prints `Server listening at http://HOST:PORT` once ready; SIGTERM or SIGINT stops it.

import { parseArgs } from "node:util";
import Fastify, { LogController } from "fastify";

const { values } = parseArgs({
  options: { port: { type: "string", default: "0" }, host: { type: "string", default: "127.0.0.1" } },
});

const app = Fastify({
  logger: { level: "warn" },
  trustProxy: true,
  bodyLimit: 1024 * 1024,
  return503OnClosing: true,
  logController: new LogController({ disableRequestLogging: true }),
  ajv: { customOptions: { allErrors: true } },
});

const payload = {
  type: "object",
  required: ["page"],
  additionalProperties: true,
  properties: {
    page: { type: "string" },
    referrer: { anyOf: [{ type: "string" }, { type: "null" }] },
    screen_resolution: { type: "string" },
    event: {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string" },
        value: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        unit: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
    },
  },
};

app.register(async (scope) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: 16 * 1024 }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body));
    } catch {
      done(null, null);
    }
  });
  scope.post(
    "/api/event",
    {
      attachValidation: true,
      bodyLimit: 16 * 1024,
      schema: { body: payload, response: { 202: { type: "null" } } },
    },
    async (request, reply) => {
      reply.header("access-control-allow-origin", "*");
      if (request.validationError) reply.header("x-analytics-dropped", "invalid");
      return reply.code(202).send();
    },
  );
});
app.get("/healthz", async () => ({ status: "ok" }));

const address = await app.listen({ port: Number(values.port), host: values.host });
console.log(`Server listening at ${address}`);

const stop = () => app.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
