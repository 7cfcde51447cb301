// The web app's users page, for administrators: every user (a page at a time) with their
// role and state, a button to disable or enable each (not oneself), a form to set each one's
// web app password (a refused one open, its error beside its field), and the form that
// creates a user (their API key shown once).

import { EMAIL_MAX_LENGTH } from "../accounts/email-rule.js";
import { PASSWORD_MAX } from "../accounts/owner-sessions.js";
import { USER_NAME_MAX_LENGTH } from "../accounts/user-name-rule.js";
import { type Html, html } from "../pages/html.js";
import { pager } from "../pages/pager.js";
import type { UserRecord } from "../storage/ports.js";
import { type FormState, formFields, formNotices, ownerPage } from "./web-page.js";

/** The state of the page's forms: the new user's, and a user's password form that was refused. */
export interface UsersState extends FormState {
  /** Whose password was refused and why, said beside that form's field (each row has one). */
  refusedPassword?: { userId: number; errors: readonly string[] };
}

/** A user's set-password form: closed, or open with its field marked and the error beside it. */
function passwordForm(user: UserRecord, formToken: string, from: string, errors: readonly string[]): Html {
  const id = `p-${user.id}`;
  const wrong = errors.length > 0;
  return html`<details${wrong ? html` open` : ""}><summary>Set password</summary><form method="post" action="/users/${user.id}/password${from}" class="stack" novalidate><input type="hidden" name="csrf" value="${formToken}"><label for="${id}">New password for ${user.email}</label><input id="${id}" name="password" type="password" autocomplete="new-password" maxlength="${PASSWORD_MAX}" required${
    wrong ? html` autofocus aria-invalid="true" aria-describedby="${id}-error">` : html`>`
  }${wrong ? html`<span class="field-error" id="${id}-error">${errors.join(" ")}</span>` : ""}<button type="submit">Set password</button></form></details>`;
}

/**
 * A user's row on page `page` of the list, which its forms name so their answers come back
 * to it; `passwordErrors`: why their set-password form was refused, if it was.
 */
function userRow(
  user: UserRecord,
  me: UserRecord,
  formToken: string,
  page: number,
  passwordErrors: readonly string[],
): Html {
  const from = page > 1 ? `?page=${page}` : "";
  const role = user.isAdmin ? "Administrator" : "User";
  const state = user.disabledAt === null ? "" : " · disabled";
  const action = user.disabledAt === null ? "disable" : "enable";
  return html`<li><span class="key-name">${user.email}${user.name ? html` <span class="site-meta">(${user.name})</span>` : ""}</span>
<span class="site-meta">${role}${state} · since ${user.createdAt.toISOString().slice(0, 10)}</span>
<span class="user-actions">${
    user.id === me.id
      ? html`<span class="hint">You</span>`
      : html`<form method="post" action="/users/${user.id}/${action}${from}" class="inline"><input type="hidden" name="csrf" value="${formToken}"><button type="submit"${action === "disable" ? html` class="danger"` : ""} aria-label="${action === "disable" ? "Disable" : "Enable"} ${user.email}">${action === "disable" ? "Disable" : "Enable"}</button></form>`
  }
${passwordForm(user, formToken, from, passwordErrors)}</span></li>`;
}

export function usersPage(
  stylesheet: string,
  me: UserRecord,
  formToken: string,
  listed: { items: readonly UserRecord[]; total: number },
  page: number,
  perPage: number,
  state: UsersState,
  created?: { email: string; key: string },
): Html {
  const pages = Math.max(1, Math.ceil(listed.total / perPage));
  const refused = state.refusedPassword;
  const passwordErrors = (user: UserRecord) => (user.id === refused?.userId ? refused.errors : []);
  // A user no longer on this page (others were created since), whose form is not shown here.
  const unseen = refused && !listed.items.some((user) => user.id === refused.userId);
  return ownerPage(
    "Users",
    stylesheet,
    me,
    formToken,
    html`${
      created
        ? html`<div class="card created"><h2>API key of ${created.email}</h2>
<p>It is shown only now: hand it over somewhere safe.</p>
<p class="key"><code>${created.key}</code></p></div>`
        : ""
    }<div class="card">
<h1>Users</h1>
<p class="hint">A disabled user's keys and sign-ins stop at once; their websites and statistics stay.</p>
${formNotices(unseen ? { ...state, error: refused.errors.join(" ") } : state)}
<ul class="sites keys">${listed.items.map((user) => userRow(user, me, formToken, page, passwordErrors(user)))}</ul>${pager(page, pages, (n) => `/users?page=${n}`)}
<h2>New user</h2>
<form method="post" action="/users" novalidate class="stack">
<input type="hidden" name="csrf" value="${formToken}">
${formFields(
  [
    { name: "email", label: "Email", type: "email", autocomplete: "off", maxLength: EMAIL_MAX_LENGTH },
    {
      name: "name",
      label: "Name (optional)",
      type: "text",
      autocomplete: "off",
      required: false,
      maxLength: USER_NAME_MAX_LENGTH,
    },
    {
      name: "password",
      label: "Password (optional)",
      type: "password",
      autocomplete: "new-password",
      required: false,
      maxLength: PASSWORD_MAX,
      hint: "For the web app; at least 8 characters. Without one, the user has the API key alone.",
    },
    { name: "admin", label: "Administrator: may manage users", type: "checkbox" },
  ],
  state,
  false,
)}
<button type="submit">Create user</button>
</form>
</div>`,
  );
}
