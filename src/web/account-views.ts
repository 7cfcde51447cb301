// The web app's account pages: the first user's setup, sign-in and the password change. Server-rendered forms that work without any script;
// a field's error is shown beside it and named by the field's aria-describedby.

import { EMAIL_MAX_LENGTH } from "../accounts/email-rule.js";
import { PASSWORD_MAX } from "../accounts/owner-sessions.js";
import { USER_NAME_MAX_LENGTH } from "../accounts/user-name-rule.js";
import { type Html, html } from "../pages/html.js";
import type { UserRecord } from "../storage/ports.js";
import { type FormState, formFields, formNotices, gatePage, ownerPage } from "./web-page.js";

export function setupPage(stylesheet: string, state: FormState = {}): Html {
  return gatePage(
    "Set up analytics",
    stylesheet,
    html`<h1>Welcome</h1>
<p>Create the first user. It will be an administrator, who can add websites and other users.</p>
${formNotices(state)}
<form method="post" action="/setup" novalidate>
${formFields(
  [
    {
      name: "code",
      label: "Setup code",
      type: "text",
      autocomplete: "off",
      hint: "The server printed it in its log when it started.",
    },
    { name: "email", label: "Email", type: "email", autocomplete: "email", maxLength: EMAIL_MAX_LENGTH },
    {
      name: "name",
      label: "Name (optional)",
      type: "text",
      autocomplete: "name",
      required: false,
      maxLength: USER_NAME_MAX_LENGTH,
    },
    {
      name: "password",
      label: "Password",
      type: "password",
      autocomplete: "new-password",
      hint: "At least 8 characters.",
      maxLength: PASSWORD_MAX,
    },
  ],
  state,
)}
<button type="submit">Create user and sign in</button>
</form>`,
  );
}

/** `next`: the page to open once signed in (return-path.ts), carried through the form. */
export function signInPage(stylesheet: string, state: FormState = {}, next: string | null = null): Html {
  return gatePage(
    "Sign in",
    stylesheet,
    html`<h1>Sign in</h1>
${formNotices(state)}
<form method="post" action="/sign-in" novalidate>
${next === null ? "" : html`<input type="hidden" name="next" value="${next}">`}
${formFields(
  [
    { name: "email", label: "Email", type: "email", autocomplete: "username", maxLength: EMAIL_MAX_LENGTH },
    {
      name: "password",
      label: "Password",
      type: "password",
      autocomplete: "current-password",
      maxLength: PASSWORD_MAX,
    },
  ],
  state,
)}
<button type="submit">Sign in</button>
</form>`,
  );
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
${formNotices(state)}
<form method="post" action="/account/password" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
<input type="hidden" name="email" value="${user.email}" autocomplete="username">
${formFields(
  [
    {
      name: "current_password",
      label: "Current password",
      type: "password",
      autocomplete: "current-password",
      maxLength: PASSWORD_MAX,
    },
    {
      name: "new_password",
      label: "New password",
      type: "password",
      autocomplete: "new-password",
      hint: "At least 8 characters.",
      maxLength: PASSWORD_MAX,
    },
  ],
  state,
)}
<button type="submit">Change password</button>
</form>
</div>`,
  );
}
