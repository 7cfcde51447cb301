// The metadata store over one Kysely instance: repositories, migrations and health, the
// same for every SQL dialect. Dialect specifics (migrations, unique-violation detection,
// how to close the driver) are passed in by the dialect's opener.

import { type Kysely, type Migration, Migrator, sql } from "kysely";
import type { MetadataStore } from "../ports.js";
import { RelationalReportRepository } from "./report-repository.js";
import { RelationalSaltRepository } from "./salt-repository.js";
import type { Database } from "./schema.js";
import { RelationalSecretRepository } from "./secret-repository.js";
import type { UniqueViolationDetector } from "./unique-violation.js";
import { RelationalUserRepository } from "./user-repository.js";
import { RelationalWebsiteRepository } from "./website-repository.js";

export interface DialectParts {
  migrations: Record<string, Migration>;
  uniqueViolation: UniqueViolationDetector;
}

export class RelationalMetadataStore implements MetadataStore {
  readonly users: RelationalUserRepository;
  readonly websites: RelationalWebsiteRepository;
  readonly salts: RelationalSaltRepository;
  readonly secrets: RelationalSecretRepository;
  readonly reports: RelationalReportRepository;

  constructor(
    readonly db: Kysely<Database>,
    private readonly dialect: DialectParts,
  ) {
    this.users = new RelationalUserRepository(db, dialect.uniqueViolation);
    this.websites = new RelationalWebsiteRepository(db, dialect.uniqueViolation);
    this.salts = new RelationalSaltRepository(db);
    this.secrets = new RelationalSecretRepository(db);
    this.reports = new RelationalReportRepository(db);
  }

  async migrate(): Promise<void> {
    const migrator = new Migrator({
      db: this.db,
      provider: { getMigrations: async () => this.dialect.migrations },
      // Features are developed in parallel, each adding its own migration: a database that
      // already ran a later-named one must still accept an earlier name merged afterwards.
      // Pending ones still run in name order, after those already run, so a migration must
      // not rely on one merged after it.
      allowUnorderedMigrations: true,
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
      throw new Error(`Metadata migration ${failed} failed: ${(error as Error).message ?? error}`);
    }
  }

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
