// The browsable API documentation at /api/docs (Swagger UI, bundled) and its OpenAPI
// document at /api/docs/json, sent with a policy that lets the page load only its own
// scripts, styles and data, never be framed, and never be sniffed as another type.

import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

/**
 * The one inline style Swagger UI 5 (of @fastify/swagger-ui 6.1.3) inserts: the <style> of
 * its logo's SVG (`.logo_small_svg__cls-2{fill:#fff}...`). Allowed by its hash alone, so no
 * other inline style runs; a new version with another logo shows up in the browser test.
 */
const LOGO_STYLE_HASH = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/**
 * Swagger UI runs only its bundled files (no inline script), styles its elements through
 * the DOM (which style-src does not govern) and fetches the document from this server.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${LOGO_STYLE_HASH}`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const DOCS_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": DOCS_CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export async function apiDocs(scope: FastifyInstance) {
  scope.addHook("onSend", async (_request, reply) => {
    reply.headers(DOCS_HEADERS);
  });
  await scope.register(swaggerUi, {
    routePrefix: "/api/docs",
    // The UI would otherwise ask validator.swagger.io, a third party, to check the document.
    uiConfig: { validatorUrl: null },
  });
}
