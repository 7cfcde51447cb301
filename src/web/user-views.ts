// The web app's users page, for administrators: every user (a page at a time) with their
// role and state, a button to disable or enable each (not oneself), a form to set each one's
// web app password, and the form that creates a user (their API key shown once).

import { EMAIL_MAX_LENGTH } from "../accounts/email-rule.js";
import { PASSWORD_MAX } from "../accounts/owner-sessions.js";
import { USER_NAME_MAX_LENGTH } from "../accounts/user-name-rule.js";
import { type Html, html } from "../pages/html.js";
import { pager } from "../pages/pager.js";
import type { UserRecord } from "../storage/ports.js";
import { type FormState, formFields, formNotices, ownerPage } from "./web-page.js";

function userRow(user: UserRecord, me: UserRecord, formToken: string): Html {
  const role = user.isAdmin ? "Administrator" : "User";
  const state = user.disabledAt === null ? "" : " · disabled";
  const action = user.disabledAt === null ? "disable" : "enable";
  return html`<li><span class="key-name">${user.email}${user.name ? html` <span class="site-meta">(${user.name})</span>` : ""}</span>
<span class="site-meta">${role}${state} · since ${user.createdAt.toISOString().slice(0, 10)}</span>
<span class="user-actions">${
    user.id === me.id
      ? html`<span class="hint">You</span>`
      : html`<form method="post" action="/users/${user.id}/${action}" class="inline"><input type="hidden" name="csrf" value="${formToken}"><button type="submit"${action === "disable" ? html` class="danger"` : ""} aria-label="${action === "disable" ? "Disable" : "Enable"} ${user.email}">${action === "disable" ? "Disable" : "Enable"}</button></form>`
  }
<details><summary>Set password</summary><form method="post" action="/users/${user.id}/password" class="stack" novalidate><input type="hidden" name="csrf" value="${formToken}"><label for="p-${user.id}">New password for ${user.email}</label><input id="p-${user.id}" name="password" type="password" autocomplete="new-password" maxlength="${PASSWORD_MAX}" required><button type="submit">Set password</button></form></details></span></li>`;
}

export function usersPage(
  stylesheet: string,
  me: UserRecord,
  formToken: string,
  listed: { items: readonly UserRecord[]; total: number },
  page: number,
  perPage: number,
  state: FormState,
  created?: { email: string; key: string },
): Html {
  const pages = Math.max(1, Math.ceil(listed.total / perPage));
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
${formNotices(state)}
<ul class="sites keys">${listed.items.map((user) => userRow(user, me, formToken))}</ul>${pager(page, pages, (n) => `/users?page=${n}`)}
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
