// `analytics users create`, `users reset-password` and `keys rotate`. They open only the
// metadata store, so they work while a server runs on the same data directory. The API key
// is printed alone on the last line of standard output so scripts can take it with
// `tail -n 1`; a password is read from the terminal or standard input (password-input.ts).

import { passwordProblems } from "../accounts/owner-sessions.js";
import { UserService } from "../accounts/user-service.js";
import { systemClock } from "../clock.js";
import { ValidationError } from "../errors.js";
import { openMetadataStore } from "../storage/open-storage.js";
import { hashPassword } from "../websites/password-hash.js";
import { configFrom, parseCommand, requireString } from "./command-options.js";
import { readPassword } from "./password-input.js";

async function withUsers<T>(
  values: Record<string, string | boolean | undefined>,
  work: (users: UserService) => Promise<T>,
) {
  const metadata = openMetadataStore(configFrom(values));
  try {
    await metadata.migrate();
    return await work(new UserService(metadata.users, systemClock));
  } finally {
    await metadata.close();
  }
}

export async function usersCreateCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, {
    email: { type: "string" },
    name: { type: "string" },
    admin: { type: "boolean" },
    password: { type: "boolean" },
  });
  const email = requireString(values, "email");
  const passwordHash = values.password === true ? await newPasswordHash() : null;
  const { user, apiKey } = await withUsers(values, (users) =>
    users.create({
      email,
      name: typeof values.name === "string" ? values.name : undefined,
      admin: values.admin === true,
      passwordHash,
    }),
  );
  const signIn = passwordHash ? "; signs in to the web app with the password" : "";
  console.log(`Created user ${user.id} <${user.email}>${user.isAdmin ? " (admin)" : ""}${signIn}. API key:`);
  console.log(apiKey);
  return 0;
}

export async function usersResetPasswordCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { email: { type: "string" } });
  const email = requireString(values, "email");
  const passwordHash = await newPasswordHash();
  const user = await withUsers(values, (users) => users.replacePassword(email, passwordHash));
  console.log(`Set the password of <${user.email}>; every web app sign-in of theirs has ended.`);
  return 0;
}

/** Reads a new password (password-input.ts) and hashes it; a bad one is a ValidationError. */
async function newPasswordHash(): Promise<string> {
  const password = await readPassword();
  const problems = passwordProblems(password);
  if (problems.length > 0) throw new ValidationError({ password: problems });
  return hashPassword(password);
}

export async function keysRotateCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { email: { type: "string" } });
  const email = requireString(values, "email");
  const { user, apiKey } = await withUsers(values, (users) => users.rotateKey(email));
  console.log(`Replaced the API key of <${user.email}>; the old key no longer works. New API key:`);
  console.log(apiKey);
  return 0;
}
