import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DemoCredentials } from './demo-seed.js';

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';

/**
 * The demo client's secret exists in clear only at creation; the database keeps
 * its hash. It is kept here (owner-only, 0600) so every later start can print it.
 */
export function writeDemoCredentials(dataDir: string, credentials: DemoCredentials): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, DEMO_CREDENTIALS_FILE);
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return path;
}

/** The credentials of an earlier seed, or `undefined` if none (or unreadable). */
export function readDemoCredentials(dataDir: string): DemoCredentials | undefined {
  const path = join(dataDir, DEMO_CREDENTIALS_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<DemoCredentials>;
    if (typeof parsed.clientId !== 'string' || typeof parsed.clientSecret !== 'string' || typeof parsed.sellerLogin !== 'string')
      return undefined;
    return parsed as DemoCredentials;
  } catch {
    return undefined;
  }
}
