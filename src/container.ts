// Opens the stores, migrates them, and builds the services; owns close(). Everything with
// a socket, a file handle or a timer is created here and nowhere at import time.

import { UserService } from "./accounts/user-service.js";
import { type Clock, systemClock } from "./clock.js";
import type { Config } from "./config.js";
import { openStorage, type Storage } from "./storage/open-storage.js";
import { WebsiteService } from "./websites/website-service.js";

export interface Container {
  readonly config: Config;
  readonly clock: Clock;
  readonly storage: Storage;
  readonly users: UserService;
  readonly websites: WebsiteService;
  close(): Promise<void>;
}

export async function createContainer(config: Config, clock: Clock = systemClock): Promise<Container> {
  const storage = openStorage(config);
  try {
    await storage.metadata.migrate();
  } catch (error) {
    await storage.metadata.close();
    throw error;
  }
  return {
    config,
    clock,
    storage,
    users: new UserService(storage.metadata.users, clock),
    websites: new WebsiteService(storage.metadata.websites, clock),
    close: () => storage.metadata.close(),
  };
}
