// The metadata store over one Kysely instance: repositories, migrations, health and
// whole-table copies, the same for every SQL dialect. Dialect specifics (migrations,
// unique-violation detection, telling an unreachable server, identity sequences) are passed
// in by the dialect's opener.

import { type Kysely, type Migration, Migrator, sql } from "kysely";
import { AppError } from "../../errors.js";
import type { MetadataRow, MetadataStore, MetadataTable } from "../ports.js";
import { RelationalApiKeyRepository } from "./api-key-repository.js";
import { RelationalDropRepository } from "./drop-repository.js";
import { RelationalReportRepository } from "./report-repository.js";
import { RelationalSaltRepository } from "./salt-repository.js";
import type { Database } from "./schema.js";
import { RelationalSecretRepository } from "./secret-repository.js";
import { RelationalSessionRepository } from "./session-repository.js";
import { exportRows, type IdentityContinuer, importRows } from "./table-copy.js";
import type { UniqueViolationDetector } from "./unique-violation.js";
import { RelationalUserRepository } from "./user-repository.js";
import { RelationalWebsiteRepository } from "./website-repository.js";

export interface DialectParts {
  migrations: Record<string, Migration>;
  uniqueViolation: UniqueViolationDetector;
  /**
   * A message when the error says the store cannot be used at all: a server that cannot be
   * reached, a file on a full disk. Migrating then fails with that message alone.
   */
  unreachable?: (error: unknown) => string | null;
  /**
   * For an engine with schemas: the schema the tables live in (the first on the search
   * path). Kysely's Migrator looks for its own tables in every schema unless told which,
   * so another schema's migration tables would be taken for ours.
   */
  currentSchema?: (db: Kysely<Database>) => Promise<string>;
  /** For an engine whose id generators ignore explicitly written ids: moves them past those. */
  continueIdentity?: IdentityContinuer;
}

export class RelationalMetadataStore implements MetadataStore {
  readonly users: RelationalUserRepository;
  readonly sessions: RelationalSessionRepository;
  readonly apiKeys: RelationalApiKeyRepository;
  readonly websites: RelationalWebsiteRepository;
  readonly salts: RelationalSaltRepository;
  readonly secrets: RelationalSecretRepository;
  readonly reports: RelationalReportRepository;
  readonly drops: RelationalDropRepository;

  constructor(
    readonly db: Kysely<Database>,
    private readonly dialect: DialectParts,
  ) {
    this.users = new RelationalUserRepository(db, dialect.uniqueViolation);
    this.sessions = new RelationalSessionRepository(db);
    this.apiKeys = new RelationalApiKeyRepository(db);
    this.websites = new RelationalWebsiteRepository(db, dialect.uniqueViolation);
    this.salts = new RelationalSaltRepository(db);
    this.secrets = new RelationalSecretRepository(db);
    this.reports = new RelationalReportRepository(db);
    this.drops = new RelationalDropRepository(db);
  }

  async migrate(): Promise<void> {
    let schema: string | undefined;
    try {
      schema = await this.dialect.currentSchema?.(this.db);
    } catch (error) {
      const unreachable = this.dialect.unreachable?.(error);
      throw unreachable ? new AppError("unavailable", unreachable) : error;
    }
    const migrator = new Migrator({
      db: this.db,
      provider: { getMigrations: async () => this.dialect.migrations },
      // Features are developed in parallel, each adding its own migration: a database that
      // already ran a later-named one must still accept an earlier name merged afterwards.
      // Pending ones still run in name order, after those already run, so a migration must
      // not rely on one merged after it.
      allowUnorderedMigrations: true,
      ...(schema === undefined ? {} : { migrationTableSchema: schema }),
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const unreachable = this.dialect.unreachable?.(error);
      if (unreachable) throw new AppError("unavailable", unreachable);
      const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
      throw new Error(`Metadata migration ${failed} failed: ${(error as Error).message ?? error}`);
    }
  }

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  exportRows(table: MetadataTable): AsyncIterable<MetadataRow[]> {
    return exportRows(this.db, table);
  }

  importRows(
    read: (table: MetadataTable) => AsyncIterable<MetadataRow[]>,
    onTable?: (table: MetadataTable, rows: number) => void,
  ): Promise<Record<MetadataTable, number>> {
    return importRows(this.db, this.dialect.continueIdentity, read, onTable);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
