// `analytics users create` and `analytics keys rotate`. They open only the metadata store,
// so they work while a server runs on the same data directory. The API key is printed alone
// on the last line of standard output so scripts can take it with `tail -n 1`.

import { UserService } from "../accounts/user-service.js";
import { systemClock } from "../clock.js";
import { openMetadataStore } from "../storage/open-storage.js";
import { configFrom, parseCommand, requireString } from "./command-options.js";

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
  });
  const email = requireString(values, "email");
  const { user, apiKey } = await withUsers(values, (users) =>
    users.create({
      email,
      name: typeof values.name === "string" ? values.name : undefined,
      admin: values.admin === true,
    }),
  );
  console.log(`Created user ${user.id} <${user.email}>${user.isAdmin ? " (admin)" : ""}. API key:`);
  console.log(apiKey);
  return 0;
}

export async function keysRotateCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { email: { type: "string" } });
  const email = requireString(values, "email");
  const { user, apiKey } = await withUsers(values, (users) => users.rotateKey(email));
  console.log(`Replaced the API key of <${user.email}>; the old key no longer works. New API key:`);
  console.log(apiKey);
  return 0;
}
