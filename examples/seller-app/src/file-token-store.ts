import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StoredTokens, TokenStore } from '@feira/sdk';

/**
 * The SDK's pluggable token store, kept in one JSON file (mode 0600) so a
 * restart keeps every seller connected. A real app would use its database and
 * encrypt the tokens at rest: they are credentials.
 */
export class FileTokenStore implements TokenStore {
  #cache: Record<string, StoredTokens> | undefined;

  constructor(private readonly path: string) {}

  async #all(): Promise<Record<string, StoredTokens>> {
    if (!this.#cache) {
      try {
        this.#cache = JSON.parse(await readFile(this.path, 'utf8')) as Record<string, StoredTokens>;
      } catch {
        this.#cache = {};
      }
    }
    return this.#cache;
  }

  async #persist(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.tmp`;
    await writeFile(temporary, JSON.stringify(this.#cache, null, 2), { mode: 0o600 });
    await rename(temporary, this.path);
  }

  async get(key: string): Promise<StoredTokens | undefined> {
    return (await this.#all())[key];
  }

  async set(key: string, tokens: StoredTokens): Promise<void> {
    (await this.#all())[key] = tokens;
    await this.#persist();
  }

  async delete(key: string): Promise<void> {
    delete (await this.#all())[key];
    await this.#persist();
  }
}
