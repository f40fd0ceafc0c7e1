import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { insertQuoteCalls, type QuoteCallRecord, type QuoteLogTables } from './quote-call-rows.js';

/**
 * Where the quote log's rows are kept: the platform's database, or on SQLite a
 * file of its own (quote-log-file.ts). The batched writer (quote-log-writer.ts)
 * writes through it and the admin list reads through it.
 */
export interface QuoteLogStore {
  /** Opens now what would be opened on first use (the server does, so a bad file shows at start). */
  open(): Promise<void>;
  /** The database to read the log from (the admin list). */
  reader(): Promise<Kysely<QuoteLogTables>>;
  /**
   * Writes rows and resolves once they are committed. A row whose id is
   * already in the log is left as it is, so a batch may be written twice.
   */
  write(rows: readonly QuoteCallRecord[]): Promise<void>;
  /** Where trouble that costs no row is reported (a writer thread that stopped, say). */
  onTrouble(handler: (error: Error, message: string) => void): void;
  /** Releases what the store opened; written rows stay. */
  close(): Promise<void>;
}

/** The log in the platform's own database: PostgreSQL, and SQLite in memory. */
export function quoteLogInDatabase(database: Database): QuoteLogStore {
  // The platform's schema holds quote_calls; readers see only that table.
  const log = database.db as unknown as Kysely<QuoteLogTables>;
  return {
    async open() {},
    reader: async () => log,
    async write(rows) {
      await insertQuoteCalls(log, rows).execute();
    },
    onTrouble() {},
    async close() {},
  };
}
