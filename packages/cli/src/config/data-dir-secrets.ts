import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

/**
 * A secret kept in the data folder: read if present, else generated once and
 * written with mode 0600 (owner only), so every later start reuses it.
 * Returns whether it was generated now.
 */
export function loadOrCreateSecretFile(
  dataDir: string,
  name: string,
  generate: () => string,
): { value: string; generated: boolean; path: string } {
  const path = join(dataDir, name);
  if (existsSync(path)) {
    const value = readFileSync(path, 'utf8').trim();
    if (value.length === 0) throw new ConfigError(`${path} is empty; delete it to generate a new one`);
    return { value, generated: false, path };
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const value = generate();
  try {
    // `wx`: never overwrite a file another process created in the meantime; use theirs instead.
    writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecretFile(dataDir, name, generate);
    throw error;
  }
  chmodSync(path, 0o600);
  return { value, generated: true, path };
}
