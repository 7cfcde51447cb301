// `analytics users create` and `analytics keys rotate`. The API key is printed alone on the
// last line of standard output so scripts can take it with `tail -n 1`.

import { createContainer } from "../container.js";
import { configFrom, parseCommand, requireString } from "./command-options.js";

export async function usersCreateCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, {
    email: { type: "string" },
    name: { type: "string" },
    admin: { type: "boolean" },
  });
  const email = requireString(values, "email");
  const container = await createContainer(configFrom(values));
  try {
    const { user, apiKey } = await container.users.create({
      email,
      name: typeof values.name === "string" ? values.name : undefined,
      admin: values.admin === true,
    });
    console.log(`Created user ${user.id} <${user.email}>${user.isAdmin ? " (admin)" : ""}. API key:`);
    console.log(apiKey);
    return 0;
  } finally {
    await container.close();
  }
}

export async function keysRotateCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { email: { type: "string" } });
  const email = requireString(values, "email");
  const container = await createContainer(configFrom(values));
  try {
    const { user, apiKey } = await container.users.rotateKey(email);
    console.log(`Replaced the API key of <${user.email}>; the old key no longer works. New API key:`);
    console.log(apiKey);
    return 0;
  } finally {
    await container.close();
  }
}
