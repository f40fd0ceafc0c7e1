import type { TokenSet } from '@feira/contract';
import { type OAuthClientCredentials, refresh } from './oauth-client.js';
import { MemoryTokenStore, type StoredTokens, type TokenStore } from './token-store.js';

/**
 * Refresh this long before `expires_in` runs out, so a token never expires mid-request.
 *
 * @example
 * ```ts
 * new TokenManager({ ...oauth, refreshMarginSec: DEFAULT_REFRESH_MARGIN_SECONDS * 2 });
 * ```
 */
export const DEFAULT_REFRESH_MARGIN_SECONDS = 60;

/**
 * Options of the TokenManager.
 *
 * @example
 * ```ts
 * const options: TokenManagerOptions = { authUrl, clientId, clientSecret, refreshMarginSec: 120 };
 * ```
 */
export interface TokenManagerOptions extends OAuthClientCredentials {
  /** Default: a MemoryTokenStore. */
  store?: TokenStore;
  /** Seconds before expiry at which the access token is refreshed. Default 60. */
  refreshMarginSec?: number;
  /** The current time; default the system clock. Pass it in tests. */
  now?: () => Date;
}

/**
 * Thrown by `accessToken(key)` when no tokens are stored under the key.
 *
 * @example
 * ```ts
 * try {
 *   await tokens.accessToken(sellerId);
 * } catch (error) {
 *   if (error instanceof NotConnectedError) return reply.redirect('/connect');
 *   throw error;
 * }
 * ```
 */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
}

/**
 * Keeps each seller's tokens, refreshes an access token shortly before
 * `expires_in` runs out, shares one refresh among concurrent callers (a refresh
 * token is rotated on use, spec-notes I5, so two parallel refreshes would
 * race), and always stores the new refresh token.
 *
 * @example
 * ```ts
 * import { exchangeCode, FeiraClient, TokenManager } from '@feira/sdk';
 *
 * const tokens = new TokenManager({ authUrl, clientId, clientSecret });
 * // OAuth callback:
 * await tokens.save(sellerId, await exchangeCode({ authUrl, clientId, clientSecret, code, redirectUri }));
 * // Anywhere later:
 * const api = new FeiraClient({ baseUrl, accessToken: () => tokens.accessToken(sellerId) });
 * ```
 */
export class TokenManager {
  readonly #options: TokenManagerOptions;
  readonly #store: TokenStore;
  readonly #marginMs: number;
  readonly #inFlight = new Map<string, Promise<StoredTokens>>();

  constructor(options: TokenManagerOptions) {
    this.#options = options;
    this.#store = options.store ?? new MemoryTokenStore();
    this.#marginMs = (options.refreshMarginSec ?? DEFAULT_REFRESH_MARGIN_SECONDS) * 1000;
  }

  #now(): number {
    return (this.#options.now?.() ?? new Date()).getTime();
  }

  #toStored(tokens: TokenSet): StoredTokens {
    // The local clock, not `created_at`: a skewed server clock must not make tokens look fresh or stale.
    return {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      expiresAt: this.#now() + tokens.expires_in * 1000,
      scope: tokens.scope,
    };
  }

  /**
   * Stores a token set (from `exchangeCode`) under `key`.
   *
   * @example
   * ```ts
   * await tokens.save('seller-42', tokenSet);
   * ```
   */
  async save(key: string, tokens: TokenSet): Promise<StoredTokens> {
    const stored = this.#toStored(tokens);
    await this.#store.set(key, stored);
    return stored;
  }

  /**
   * A valid access token for `key`, refreshed first when it expires within the margin.
   *
   * @throws {NotConnectedError} when nothing is stored under `key`.
   * @throws {OAuthError} when the refresh is refused (`invalid_grant`: the seller must connect again).
   * @example
   * ```ts
   * const token = await tokens.accessToken('seller-42');
   * ```
   */
  async accessToken(key: string): Promise<string> {
    const current = await this.#store.get(key);
    if (!current) throw new NotConnectedError(`No tokens are stored for "${key}": connect the seller first.`);
    if (current.expiresAt - this.#marginMs > this.#now()) return current.accessToken;
    return (await this.refresh(key)).accessToken;
  }

  /**
   * Refreshes now (e.g. after a 401), sharing one call among concurrent callers for the same key.
   *
   * @example
   * ```ts
   * const fresh = await tokens.refresh('seller-42');
   * ```
   */
  refresh(key: string): Promise<StoredTokens> {
    const running = this.#inFlight.get(key);
    if (running) return running;
    const work = (async () => {
      const current = await this.#store.get(key);
      if (!current) throw new NotConnectedError(`No tokens are stored for "${key}": connect the seller first.`);
      const next = await refresh({ ...this.#options, refreshToken: current.refreshToken });
      // spec-notes I5: every refresh returns a new refresh token; the old one must not be used again.
      return this.save(key, next);
    })().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, work);
    return work;
  }

  /**
   * Forgets a seller's tokens (disconnect).
   *
   * @example
   * ```ts
   * await tokens.forget('seller-42');
   * ```
   */
  async forget(key: string): Promise<void> {
    await this.#store.delete(key);
  }
}
