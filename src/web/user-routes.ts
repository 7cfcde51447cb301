// The web app's users routes, for administrators only (anyone else gets the not-found page):
// the list (/users), creating a user, disabling or enabling one, setting one's password.
// Every change goes through UserService, as the users API's do, and needs the sign-in's form
// token. A change done redirects to the list (post/redirect/get: a reload does not post it
// again), which says what was done; one refused is answered in place.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { passwordProblems } from "../accounts/owner-sessions.js";
import { AppError, NotFoundError, ValidationError } from "../errors.js";
import { sendHtml } from "../pages/html-response.js";
import { type UsersState, usersPage } from "./user-views.js";
import type { WebAppOptions } from "./web-app.js";
import { messagePage } from "./web-page.js";
import { ownerGate, repeatedFields, type Session } from "./web-request.js";

const PER_PAGE = 25;
const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
/**
 * A typed field: no limit here, where going over it would fail the whole form (a 400 with
 * every value lost); the users' rules check it and say so beside the field. The body limit
 * (1 MiB) bounds what is read.
 */
const Typed = Type.Optional(Type.String());
/** Any text: one that names no user is the users page's "no such user", not a 400. */
const UserParams = Type.Object({ id: Type.String() });
/** The list's page a change's form is on (its action says it), where its answer goes back to. */
const PageQuery = Type.Object({ page: Text(9) });
const CreateBody = Type.Object({
  csrf: Text(128),
  email: Typed,
  name: Typed,
  password: Typed,
  admin: Text(8),
});
const PasswordBody = Type.Object({ csrf: Text(128), password: Typed });
const CsrfBody = Type.Object({ csrf: Text(128) });
/** What the list says after a change redirected to it (`?done=`): one of these, never the address's text. */
const DONE = new Map([
  ["disabled", "User disabled: their keys and sign-ins no longer work."],
  ["enabled", "User enabled again."],
  ["password", "Password set: the user's sign-ins have ended."],
]);

/** A post of a change to user `id`, from the list's page `page`. */
type ChangeRequest = FastifyRequest & {
  params: { id: string };
  query: { page?: string | undefined };
  body?: { csrf?: string | undefined } | undefined;
};

/** The list's page asked for; the first when none or not a page number. */
function pageOf(asked: string | undefined): number {
  const page = Number(asked);
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

export function userRoutes(scope: FastifyInstance, options: WebAppOptions): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { owners, users, passwords, stylesheet, publicUrl } = options;

  const gate = ownerGate(owners, stylesheet, publicUrl);
  /** The session if its owner is an administrator, else null (after a 404 page for a signed-in one). */
  const admin = async (session: Session | null, reply: FastifyReply): Promise<Session | null> => {
    if (!session || session.user.isAdmin) return session;
    await sendHtml(
      reply,
      404,
      messagePage(stylesheet, "Page not found", "There is nothing at this address."),
    );
    return null;
  };
  /** The administrator of a post that may act; anyone else is answered (404 before 403). */
  const adminPost = async (request: FastifyRequest, reply: FastifyReply, presented: string | undefined) =>
    (await admin(await gate.page(request, reply), reply)) ? gate.post(request, reply, presented) : null;
  const page = async (
    reply: FastifyReply,
    session: Session,
    status: number,
    state: UsersState,
    pageNumber = 1,
    created?: { email: string; key: string },
  ) => {
    const listed = await users.list(session.user, { perPage: PER_PAGE, page: pageNumber });
    const token = await owners.formToken(session.token);
    return sendHtml(
      reply,
      status,
      usersPage(stylesheet, session.user, token, listed, pageNumber, PER_PAGE, state, created),
    );
  };
  /**
   * A change the form asked for: refused without the form token; done, a redirect to the
   * form's page of the list saying so (`work` names what was done, a key of DONE); refused,
   * that page saying why.
   */
  const change = async (
    request: ChangeRequest,
    reply: FastifyReply,
    work: (session: Session, userId: number) => Promise<string>,
  ) => {
    const session = await adminPost(request, reply, request.body?.csrf);
    if (!session) return reply;
    const userId = /^[1-9]\d{0,15}$/.test(request.params.id) ? Number(request.params.id) : 0;
    const listPage = pageOf(request.query.page);
    try {
      if (userId === 0) throw new NotFoundError();
      const done = await work(session, userId);
      return reply.redirect(`/users?${listPage > 1 ? `page=${listPage}&` : ""}done=${done}`, 303);
    } catch (error) {
      if (error instanceof NotFoundError)
        return page(reply, session, 404, { error: "There is no such user." }, listPage);
      // Only the password is checked: its error goes beside that user's field.
      if (error instanceof ValidationError)
        return page(
          reply,
          session,
          422,
          { refusedPassword: { userId, errors: Object.values(error.fields).flat() } },
          listPage,
        );
      if (error instanceof AppError && error.code === "forbidden")
        return page(reply, session, 403, { error: error.message }, listPage);
      throw error;
    }
  };

  app.get(
    "/users",
    { schema: { hide: true, querystring: Type.Object({ page: Text(9), done: Text(16) }) } },
    async (request, reply) => {
      const session = await admin(await gate.page(request, reply), reply);
      if (!session) return reply;
      const notice = DONE.get(request.query.done ?? "");
      return page(reply, session, 200, { notice }, pageOf(request.query.page));
    },
  );

  app.post("/users", { schema: { hide: true, body: Type.Optional(CreateBody) } }, async (request, reply) => {
    const body = request.body ?? {};
    const session = await adminPost(request, reply, body.csrf);
    if (!session) return reply;
    const values = { email: body.email, name: body.name, admin: body.admin === "1" ? "1" : "0" };
    const input = { email: body.email ?? "", name: body.name, admin: body.admin === "1" };
    // Every field's problems at once: the users' rules, then the password's.
    const fields = await users.problemsAs(session.user, input);
    const problems = body.password ? passwordProblems(body.password) : [];
    if (problems.length > 0) fields.password = problems;
    Object.assign(fields, repeatedFields(request, CreateBody));
    if (Object.keys(fields).length > 0) return page(reply, session, 422, { values, fields });
    try {
      const passwordHash = body.password ? await passwords.hash(body.password) : null;
      const { user, apiKey } = await users.createAs(session.user, { ...input, passwordHash });
      return page(reply, session, 201, { notice: `Created ${user.email}.` }, 1, {
        email: user.email,
        key: apiKey,
      });
    } catch (error) {
      if (error instanceof ValidationError)
        return page(reply, session, 422, { values, fields: error.fields });
      throw error;
    }
  });

  app.post(
    "/users/:id/disable",
    { schema: { hide: true, params: UserParams, querystring: PageQuery, body: Type.Optional(CsrfBody) } },
    (request, reply) =>
      change(request, reply, async (session, userId) => {
        await users.setDisabledAs(session.user, userId, true);
        return "disabled";
      }),
  );

  app.post(
    "/users/:id/enable",
    { schema: { hide: true, params: UserParams, querystring: PageQuery, body: Type.Optional(CsrfBody) } },
    (request, reply) =>
      change(request, reply, async (session, userId) => {
        await users.setDisabledAs(session.user, userId, false);
        return "enabled";
      }),
  );

  app.post(
    "/users/:id/password",
    { schema: { hide: true, params: UserParams, querystring: PageQuery, body: Type.Optional(PasswordBody) } },
    (request, reply) =>
      change(request, reply, async (session, userId) => {
        const password = request.body?.password ?? "";
        const problems = repeatedFields(request, PasswordBody).password ?? passwordProblems(password);
        if (problems.length > 0) throw new ValidationError({ password: problems });
        await users.resetPasswordAs(session.user, userId, await passwords.hash(password));
        return "password";
      }),
  );
}
