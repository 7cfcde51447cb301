// An owner of the web app as the tests drive it: signs in with email and password through
// the form, then gets pages and posts forms as a browser on this server's own pages would
// (the sign-in cookie, Sec-Fetch-Site: same-origin).

import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { SESSION_COOKIE } from "../../src/web/web-request.js";
import type { TestApp } from "./test-app.js";

/** A form's fields: by name, or as pairs (which may send a field more than once, as a crafted post). */
export type FormFields = Record<string, string> | [string, string][];

export interface WebClient {
  /** The sign-in's token, as its cookie holds it. */
  cookie: string;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, form: FormFields): Promise<LightMyRequestResponse>;
  /** The form token of the page at `url`. */
  formToken(url: string): Promise<string>;
}

/** Posts the sign-in form (from no page at all, as curl would). */
export function postSignIn(t: TestApp, email: string, password: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: "POST",
    url: "/sign-in",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ email, password }).toString(),
  });
}

/** Signs in (which must succeed) and returns a client holding that sign-in. */
export async function signedIn(t: TestApp, email: string, password: string): Promise<WebClient> {
  const response = await postSignIn(t, email, password);
  assert.equal(response.statusCode, 303, `${email} signs in`);
  const cookie = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(String(response.headers["set-cookie"]))?.[1];
  assert.ok(cookie, "signing in sets the cookie");
  return asClient(t, cookie);
}

/** A client holding the sign-in of `cookie`. */
export function asClient(t: TestApp, cookie: string): WebClient {
  const get = (url: string) =>
    t.app.inject({ method: "GET", url, headers: { cookie: `${SESSION_COOKIE}=${cookie}` } });
  return {
    cookie,
    get,
    post: (url, form) =>
      t.app.inject({
        method: "POST",
        url,
        headers: {
          cookie: `${SESSION_COOKIE}=${cookie}`,
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "same-origin",
        },
        payload: new URLSearchParams(form).toString(),
      }),
    async formToken(url) {
      const match = /name="csrf" value="([^"]+)"/.exec((await get(url)).body);
      assert.ok(match, `the page ${url} has a form token`);
      return match[1] as string;
    },
  };
}
