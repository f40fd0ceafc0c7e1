import { BoundedCache } from '../core/bounded-cache.js';
import type { TokenClaims } from './token-signer.js';

/** Verified access tokens kept; a seller reuses one token for its whole life (7200 s), so few are live at once. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * Access tokens whose ES256 signature and claims were verified, keyed by the
 * exact token string, so a seller's next call with the same token skips the
 * signature check (a WebCrypto job on the thread pool: about a third of the
 * list API's overhead in the profile, BENCHMARKS.md). Only a byte-identical
 * string hits, so nothing unverified is ever accepted; expiry is still checked
 * against the injected clock on every hit, and revocation is not cached at all
 * (the access-token guard reads the token family on every call).
 */
export class VerifiedTokenCache extends BoundedCache<string, TokenClaims> {
  constructor(size = VERIFIED_TOKEN_CACHE_SIZE) {
    super(size);
  }
}
