/**
 * A seller's tokens as the TokenManager keeps them. `expiresAt` is absolute
 * (epoch milliseconds, computed from `expires_in` when the tokens arrived).
 *
 * @example
 * ```ts
 * const stored: StoredTokens = { accessToken: 'eyJ…', refreshToken: 'eyJ…', expiresAt: 1768485600000, scope: 'open:ticket:read' };
 * ```
 */
export interface StoredTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
  scope: string;
}

/**
 * Where the TokenManager keeps tokens, keyed by your own name for a connection
 * (a seller id, a tenant id). Implement it over your database so tokens survive
 * restarts; keep them encrypted at rest, they are credentials.
 *
 * @example
 * ```ts
 * const store: TokenStore = {
 *   get: async (key) => (await db.tokens.find(key)) ?? undefined,
 *   set: async (key, tokens) => db.tokens.upsert(key, tokens),
 *   delete: async (key) => db.tokens.remove(key),
 * };
 * ```
 */
export interface TokenStore {
  get(key: string): Promise<StoredTokens | undefined>;
  set(key: string, tokens: StoredTokens): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * The default TokenStore: a Map in this process (tokens are lost on restart).
 *
 * @example
 * ```ts
 * const manager = new TokenManager({ authUrl, clientId, clientSecret, store: new MemoryTokenStore() });
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredTokens>();

  async get(key: string): Promise<StoredTokens | undefined> {
    return this.#tokens.get(key);
  }

  async set(key: string, tokens: StoredTokens): Promise<void> {
    this.#tokens.set(key, tokens);
  }

  async delete(key: string): Promise<void> {
    this.#tokens.delete(key);
  }
}
