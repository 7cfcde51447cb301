// The web app's account pages: the first user's setup, sign-in, the password change and the
// signed-in home (the owner's websites). Server-rendered forms that work without any script;
// a field's error is shown beside it and named by the field's aria-describedby.

import type { FieldErrors } from "../errors.js";
import { type Html, html } from "../pages/html.js";
import { layout } from "../pages/page-layout.js";
import type { UserRecord } from "../storage/ports.js";
import { unicodeDomain } from "../unicode-domain.js";

export interface FormState {
  /** Values to show again (never a password). */
  values?: Record<string, string | undefined>;
  /** Per field, what is wrong with it. */
  fields?: FieldErrors;
  /** What is wrong with the form as a whole. */
  error?: string | undefined;
  /** What went right (a changed password). */
  notice?: string | undefined;
  /** The field to focus when no field is wrong (else the first one). */
  focus?: string | undefined;
}

interface FieldSpec {
  name: string;
  label: string;
  type: "email" | "text" | "password";
  autocomplete: string;
  required?: boolean;
  hint?: string;
}

function field(spec: FieldSpec, state: FormState, autofocus: boolean): Html {
  const errors = state.fields?.[spec.name] ?? [];
  const id = `f-${spec.name}`;
  const described = [spec.hint ? `${id}-hint` : "", errors.length > 0 ? `${id}-error` : ""].filter(Boolean);
  const value = spec.type === "password" ? undefined : state.values?.[spec.name];
  return html`<label for="${id}">${spec.label}</label>
${spec.hint ? html`<span class="hint" id="${id}-hint">${spec.hint}</span>` : ""}
<input id="${id}" name="${spec.name}" type="${spec.type}" autocomplete="${spec.autocomplete}"${
    value ? html` value="${value}"` : ""
  }${spec.required === false ? "" : html` required`}${autofocus ? html` autofocus` : ""}${
    errors.length > 0 ? html` aria-invalid="true"` : ""
  }${described.length > 0 ? html` aria-describedby="${described.join(" ")}"` : ""}>
${errors.length > 0 ? html`<span class="field-error" id="${id}-error">${errors.join(" ")}</span>` : ""}`;
}

function fields(specs: readonly FieldSpec[], state: FormState): Html {
  const firstWrong = specs.findIndex((spec) => (state.fields?.[spec.name] ?? []).length > 0);
  const asked = specs.findIndex((spec) => spec.name === state.focus);
  const focus = firstWrong >= 0 ? firstWrong : Math.max(asked, 0);
  return html`${specs.map((spec, index) => field(spec, state, index === focus))}`;
}

function notices(state: FormState): Html {
  return html`${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ""}${
    state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ""
  }`;
}

function gatePage(title: string, stylesheet: string, body: Html): Html {
  return layout({
    title,
    stylesheet,
    body: html`<main class="wrap"><div class="gate card">${body}</div></main>`,
  });
}

export function setupPage(stylesheet: string, state: FormState = {}): Html {
  return gatePage(
    "Set up analytics",
    stylesheet,
    html`<h1>Welcome</h1>
<p>Create the first user. It will be an administrator, who can add websites and other users.</p>
${notices(state)}
<form method="post" action="/setup" novalidate>
${fields(
  [
    {
      name: "code",
      label: "Setup code",
      type: "text",
      autocomplete: "off",
      hint: "The server printed it in its log when it started.",
    },
    { name: "email", label: "Email", type: "email", autocomplete: "email" },
    { name: "name", label: "Name (optional)", type: "text", autocomplete: "name", required: false },
    {
      name: "password",
      label: "Password",
      type: "password",
      autocomplete: "new-password",
      hint: "At least 8 characters.",
    },
  ],
  state,
)}
<button type="submit">Create user and sign in</button>
</form>`,
  );
}

export function signInPage(stylesheet: string, state: FormState = {}): Html {
  return gatePage(
    "Sign in",
    stylesheet,
    html`<h1>Sign in</h1>
${notices(state)}
<form method="post" action="/sign-in" novalidate>
${fields(
  [
    { name: "email", label: "Email", type: "email", autocomplete: "username" },
    { name: "password", label: "Password", type: "password", autocomplete: "current-password" },
  ],
  state,
)}
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The page of a signed-in owner: what they see above every page of the app. */
function ownerPage(title: string, stylesheet: string, user: UserRecord, formToken: string, main: Html): Html {
  return layout({
    title,
    stylesheet,
    body: html`<header class="top app"><div class="wrap">
<a class="home" href="/">Analytics</a>
<nav aria-label="Account"><span class="who">${user.email}</span>
<a href="/account/password">Password</a>
<form class="signout" method="post" action="/sign-out"><input type="hidden" name="csrf" value="${formToken}"><button type="submit">Sign out</button></form>
</nav>
</div></header>
<main class="wrap">${main}</main>`,
  });
}

export function passwordChangePage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  state: FormState = {},
): Html {
  return ownerPage(
    "Change password",
    stylesheet,
    user,
    formToken,
    html`<div class="gate card in-app">
<h1>Change password</h1>
<p>Every other browser signed in as you is signed out.</p>
${notices(state)}
<form method="post" action="/account/password" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
<input type="hidden" name="email" value="${user.email}" autocomplete="username">
${fields(
  [
    {
      name: "current_password",
      label: "Current password",
      type: "password",
      autocomplete: "current-password",
    },
    {
      name: "new_password",
      label: "New password",
      type: "password",
      autocomplete: "new-password",
      hint: "At least 8 characters.",
    },
  ],
  state,
)}
<button type="submit">Change password</button>
</form>
</div>`,
  );
}

export interface HomeWebsite {
  domain: string;
}

/** The signed-in home: the owner's websites, each linking to its statistics. */
export function homePage(
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  websites: readonly HomeWebsite[],
  total: number,
  apiKey?: string,
): Html {
  const list =
    websites.length === 0
      ? html`<p>No website yet. Add one through the API (<a href="/api/docs">API documentation</a>).</p>`
      : html`<ul class="sites">${websites.map(
          (website) =>
            html`<li><a href="/${encodeURIComponent(website.domain)}">${unicodeDomain(website.domain)}</a></li>`,
        )}</ul>${total > websites.length ? html`<p class="hint">${websites.length} of ${total} shown.</p>` : ""}`;
  return ownerPage(
    "Websites",
    stylesheet,
    user,
    formToken,
    html`${
      apiKey
        ? html`<div class="card created"><h2>Your API key</h2>
<p>It is shown only now: keep it somewhere safe. The API takes it as <code>Authorization: Bearer …</code>.</p>
<p class="key"><code>${apiKey}</code></p></div>`
        : ""
    }<div class="card"><h1>Websites</h1>${list}</div>`,
  );
}
