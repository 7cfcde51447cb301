// The pieces every page of the web app is made of: form fields that show their hint and
// their error beside them (named by aria-describedby, marked aria-invalid), the notices of a
// whole form, and the layout of a signed-in page (the app's header: who is signed in, the
// password page, sign-out).

import type { FieldErrors } from "../errors.js";
import { type Html, html } from "../pages/html.js";
import { layout } from "../pages/page-layout.js";
import type { UserRecord } from "../storage/ports.js";

export interface FormState {
  /** Values to show again (never a password). */
  values?: Record<string, string | undefined>;
  /** Per field, what is wrong with it. */
  fields?: FieldErrors;
  /** What is wrong with the form as a whole. */
  error?: string | undefined;
  /** What went right (a changed password, saved settings). */
  notice?: string | undefined;
  /** The field to focus when no field is wrong (else the first one). */
  focus?: string | undefined;
}

interface FieldBase {
  name: string;
  label: string;
  hint?: string;
}

/**
 * The rule's limit as the browser's maxlength: typing stops there. Both count UTF-16 code
 * units (field-rule.ts). The server checks the same rule all the same (a crafted value), with
 * its message beside the field.
 */
interface Limited {
  maxLength?: number;
}

export type FieldSpec =
  | (FieldBase &
      Limited & {
        type: "email" | "text" | "password";
        autocomplete: string;
        required?: boolean;
      })
  | (FieldBase & Limited & { type: "textarea"; rows: number })
  | (FieldBase & { type: "select"; options: readonly { value: string; label: string }[] })
  | (FieldBase & { type: "radio"; options: readonly { value: string; label: string }[] })
  /** Checked when the value shown is "1"; sends "1" when checked, nothing when not. */
  | (FieldBase & { type: "checkbox" });

function describedBy(id: string, spec: FieldSpec, wrong: boolean): Html | "" {
  const ids = [spec.hint ? `${id}-hint` : "", wrong ? `${id}-error` : ""].filter(Boolean);
  return ids.length > 0 ? html` aria-describedby="${ids.join(" ")}"` : "";
}

function maxLength(spec: Limited): Html | "" {
  return spec.maxLength === undefined ? "" : html` maxlength="${spec.maxLength}"`;
}

function field(spec: FieldSpec, state: FormState, autofocus: boolean): Html {
  const errors = state.fields?.[spec.name] ?? [];
  const wrong = errors.length > 0;
  const id = `f-${spec.name}`;
  const value = state.values?.[spec.name];
  const common = html`${autofocus ? html` autofocus` : ""}${wrong ? html` aria-invalid="true"` : ""}${describedBy(id, spec, wrong)}`;
  const hint = spec.hint ? html`<span class="hint" id="${id}-hint">${spec.hint}</span>` : "";
  const error = wrong ? html`<span class="field-error" id="${id}-error">${errors.join(" ")}</span>` : "";
  switch (spec.type) {
    case "checkbox":
      return html`<span class="check"><input id="${id}" name="${spec.name}" type="checkbox" value="1"${
        value === "1" ? html` checked` : ""
      }${common}><label for="${id}">${spec.label}</label></span>${hint}${error}`;
    case "radio":
      return html`<fieldset${wrong ? html` aria-invalid="true"` : ""}${describedBy(id, spec, wrong)}><legend>${spec.label}</legend>${spec.options.map(
        (option, index) =>
          html`<span class="check"><input id="${id}-${option.value}" name="${spec.name}" type="radio" value="${option.value}"${
            option.value === value ? html` checked` : ""
          }${autofocus && index === 0 ? html` autofocus` : ""}><label for="${id}-${option.value}">${option.label}</label></span>`,
      )}</fieldset>${hint}${error}`;
    case "select":
      return html`<label for="${id}">${spec.label}</label>${hint}<select id="${id}" name="${spec.name}"${common}>${spec.options.map(
        (option) =>
          html`<option value="${option.value}"${option.value === value ? html` selected` : ""}>${option.label}</option>`,
      )}</select>${error}`;
    case "textarea":
      return html`<label for="${id}">${spec.label}</label>${hint}<textarea id="${id}" name="${spec.name}" rows="${spec.rows}" spellcheck="false"${maxLength(spec)}${common}>${value ?? ""}</textarea>${error}`;
    default:
      return html`<label for="${id}">${spec.label}</label>${hint}<input id="${id}" name="${spec.name}" type="${spec.type}" autocomplete="${spec.autocomplete}"${
        value && spec.type !== "password" ? html` value="${value}"` : ""
      }${maxLength(spec)}${spec.required === false ? "" : html` required`}${common}>${error}`;
  }
}

/** The fields of a form; the first wrong one (else `state.focus`, else the first) has the focus. */
export function formFields(specs: readonly FieldSpec[], state: FormState, focusFirst = true): Html {
  const firstWrong = specs.findIndex((spec) => (state.fields?.[spec.name] ?? []).length > 0);
  const asked = specs.findIndex((spec) => spec.name === state.focus);
  const focus = firstWrong >= 0 ? firstWrong : asked >= 0 ? asked : focusFirst ? 0 : -1;
  return html`${specs.map((spec, index) => field(spec, state, index === focus))}`;
}

export function formNotices(state: FormState): Html {
  return html`${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ""}${
    state.notice ? html`<p class="notice" role="status">${state.notice}</p>` : ""
  }`;
}

/** A page of one card in the middle: the pages before signing in. */
export function gatePage(title: string, stylesheet: string, body: Html): Html {
  return layout({
    title,
    stylesheet,
    body: html`<main class="wrap"><div class="gate card">${body}</div></main>`,
  });
}

/** A page of a signed-in owner, under the app's header. */
export function ownerPage(
  title: string,
  stylesheet: string,
  user: UserRecord,
  formToken: string,
  main: Html,
): Html {
  return layout({
    title,
    stylesheet,
    body: html`${appHeader(user, formToken)}
<main class="wrap">${main}</main>`,
  });
}

/** The app's header of a signed-in owner's pages (their dashboards' too): home, account, sign-out. */
export function appHeader(user: UserRecord, formToken: string): Html {
  return html`<header class="top app"><div class="wrap">
<a class="home" href="/">Analytics</a>
<nav aria-label="Account"><span class="who">${user.email}</span>
${user.isAdmin ? html`<a href="/users">Users</a>` : ""}
<a href="/account/keys">API keys</a>
<a href="/account/password">Password</a>
<form class="signout" method="post" action="/sign-out"><input type="hidden" name="csrf" value="${formToken}"><button type="submit">Sign out</button></form>
</nav>
</div></header>`;
}

/** A page that only says something (errors, refusals). */
export function messagePage(stylesheet: string, title: string, text: string): Html {
  return gatePage(title, stylesheet, html`<h1>${title}</h1><p>${text}</p>`);
}

export function crossSitePage(stylesheet: string): Html {
  return messagePage(
    stylesheet,
    "Form refused",
    "This form was not sent from this server's own page, so it was not accepted. Open the page again and retry.",
  );
}
