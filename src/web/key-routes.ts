// The web app's API keys routes: the list (/account/keys), a new key (shown once, in the
// answer to its form) and revoking one. Changes need the sign-in's form token.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { Type } from "typebox";
import { NotFoundError, ValidationError } from "../errors.js";
import { sendHtml } from "../pages/html-response.js";
import { keysPage, revokeKeyPage } from "./key-views.js";
import type { WebAppOptions } from "./web-app.js";
import type { FormState } from "./web-page.js";
import { ownerGate, repeatedFields, type Session } from "./web-request.js";

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
/** The name has no limit here (going over would fail the whole form): the key rules say so beside it. */
const CreateBody = Type.Object({ csrf: Text(128), name: Type.Optional(Type.String()), access: Text(8) });
const RevokeParams = Type.Object({ keyId: Type.String({ maxLength: 32 }) });
const CsrfBody = Type.Object({ csrf: Text(128) });

export function keyRoutes(scope: FastifyInstance, options: WebAppOptions): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { owners, keys, stylesheet, publicUrl } = options;

  const gate = ownerGate(owners, stylesheet, publicUrl);
  const page = async (
    reply: FastifyReply,
    session: Session,
    status: number,
    state: FormState,
    created?: { name: string; key: string },
  ) =>
    sendHtml(
      reply,
      status,
      keysPage(
        stylesheet,
        session.user,
        await owners.formToken(session.token),
        await keys.list(session.user),
        state,
        created,
      ),
    );

  app.get(
    "/account/keys",
    { schema: { hide: true, querystring: Type.Object({ revoked: Text(1) }) } },
    async (request, reply) => {
      const session = await gate.page(request, reply);
      if (!session) return reply;
      const notice = request.query.revoked ? "Key revoked." : undefined;
      return page(reply, session, 200, { values: { access: "read" }, notice });
    },
  );

  app.post(
    "/account/keys",
    { schema: { hide: true, body: Type.Optional(CreateBody) } },
    async (request, reply) => {
      const body = request.body ?? {};
      const session = await gate.post(request, reply, body.csrf);
      if (!session) return reply;
      const values = { name: body.name, access: body.access };
      const fields = repeatedFields(request, CreateBody);
      if (body.access !== "read" && body.access !== "full")
        fields.access ??= ["The access must be one of: read, full."];
      if (Object.keys(fields).length > 0) return page(reply, session, 422, { values, fields });
      try {
        const { record, key } = await keys.create(session.user, {
          name: body.name ?? "",
          readOnly: body.access === "read",
        });
        return page(reply, session, 201, { values: { access: "read" } }, { name: record.name ?? "", key });
      } catch (error) {
        if (error instanceof ValidationError)
          return page(reply, session, 422, { values, fields: error.fields });
        throw error;
      }
    },
  );

  app.get(
    "/account/keys/:keyId/revoke",
    { schema: { hide: true, params: RevokeParams } },
    async (request, reply) => {
      const session = await gate.page(request, reply);
      if (!session) return reply;
      const key = (await keys.list(session.user)).find(
        (candidate) => candidate.keyId === request.params.keyId && candidate.name !== null,
      );
      if (!key) return page(reply, session, 404, { error: "There is no such key to revoke." });
      const token = await owners.formToken(session.token);
      return sendHtml(reply, 200, revokeKeyPage(stylesheet, session.user, token, key));
    },
  );

  app.post(
    "/account/keys/:keyId/revoke",
    { schema: { hide: true, params: RevokeParams, body: Type.Optional(CsrfBody) } },
    async (request, reply) => {
      const session = await gate.post(request, reply, request.body?.csrf);
      if (!session) return reply;
      try {
        await keys.revoke(session.user, request.params.keyId);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        return page(reply, session, 404, { error: "There is no such key to revoke." });
      }
      // Post/redirect/get: a reload of the list does not post the revocation again.
      return reply.redirect("/account/keys?revoked=1", 303);
    },
  );
}
