import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writePrivateFile } from './private-file.js';

/** The file `feira start` writes into its data folder while it runs, so every other command finds it. */
export const SANDBOX_RECORD_FILE = 'sandbox.json';

export interface SandboxRecord {
  /** The URL clients use (the public URL). */
  url: string;
  pid: number;
  /** Where the admin token is kept; null when it was given by flag or environment (then FEIRA_ADMIN_TOKEN). */
  admin_token_file: string | null;
  /** The demo seller's quote endpoint, when one runs. */
  demo_quote_url: string | null;
  /** PEM file of the local CA the sandbox's outbound client trusts (sandbox mode). */
  local_ca_file: string | null;
  mode: 'sandbox' | 'strict';
  /** The database it runs on, password hidden: a login made against another one is stale (D70). Absent in older records. */
  database?: string;
  started_at: string;
}

export function writeSandboxRecord(dataDir: string, record: SandboxRecord): void {
  writePrivateFile(join(dataDir, SANDBOX_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

export function readSandboxRecord(dataDir: string): SandboxRecord | undefined {
  const record = readJsonFile<Partial<SandboxRecord>>(join(dataDir, SANDBOX_RECORD_FILE));
  if (!record || typeof record.url !== 'string' || typeof record.pid !== 'number') return undefined;
  return record as SandboxRecord;
}

/** Removes the record if it is this process's (a newer sandbox on the same folder keeps its own). */
export function removeSandboxRecord(dataDir: string, pid: number = process.pid): void {
  if (readSandboxRecord(dataDir)?.pid === pid) rmSync(join(dataDir, SANDBOX_RECORD_FILE), { force: true });
}
