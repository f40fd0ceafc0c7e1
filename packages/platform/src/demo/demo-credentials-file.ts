import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DemoCredentials } from './demo-seed.js';

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';

/** Where each database's own demo is kept: `<data-dir>/databases/<key>/demo-credentials.json` (D70). */
const DATABASES_FOLDER = 'databases';

/** What the data folder keeps of a demo: the credentials and the database they were planted into. */
export type KeptDemoCredentials = DemoCredentials & { database?: string };

/**
 * The folder name of one database in the data folder: a digest of its URL
 * without the password (a password change is the same database), so a folder
 * shared by a SQLite and a PostgreSQL sandbox keeps one demo per database (D70).
 */
function databaseKey(databaseUrl: string): string {
  const withoutPassword = databaseUrl.replace(/\/\/([^:/@]+):[^@]*@/, '//$1@');
  return createHash('sha256').update(withoutPassword).digest('hex').slice(0, 16);
}

function writePrivate(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/**
 * The demo client's secret exists in clear only at creation; the database keeps
 * its hash. It is kept here (owner-only, 0600) so every later start can print it:
 * in `<data-dir>/demo-credentials.json` (the running database's demo, what the
 * README's examples read) and, when the database is named, in that database's
 * own folder too, so starting on another database in the same data folder
 * cannot lose it (D70).
 */
export function writeDemoCredentials(dataDir: string, credentials: DemoCredentials, database?: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const kept: KeptDemoCredentials = database ? { ...credentials, database } : credentials;
  const content = `${JSON.stringify(kept, null, 2)}\n`;
  if (database) writePrivate(join(dataDir, DATABASES_FOLDER, databaseKey(database), DEMO_CREDENTIALS_FILE), content);
  const path = join(dataDir, DEMO_CREDENTIALS_FILE);
  writePrivate(path, content);
  return path;
}

function readCredentialsFile(path: string): KeptDemoCredentials | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<KeptDemoCredentials>;
    if (typeof parsed.clientId !== 'string' || typeof parsed.clientSecret !== 'string' || typeof parsed.sellerLogin !== 'string')
      return undefined;
    return parsed as KeptDemoCredentials;
  } catch {
    return undefined;
  }
}

/**
 * The credentials of an earlier seed, or `undefined` if none (or unreadable).
 * With a database: that database's own copy, else the folder's main file when
 * it was written for that database or by a version that did not say (the
 * caller checks that its client exists there).
 */
export function readDemoCredentials(dataDir: string, database?: string): KeptDemoCredentials | undefined {
  if (database) {
    const own = readCredentialsFile(join(dataDir, DATABASES_FOLDER, databaseKey(database), DEMO_CREDENTIALS_FILE));
    if (own) return own;
  }
  const main = readCredentialsFile(join(dataDir, DEMO_CREDENTIALS_FILE));
  if (main && database && main.database !== undefined && main.database !== database) return undefined;
  return main;
}
