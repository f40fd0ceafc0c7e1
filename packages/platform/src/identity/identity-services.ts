import { DEFAULT_SIGNING_KEYS } from '../core/config.js';
import type { PlatformContext } from '../http/platform-context.js';
import { PasswordCheckGate } from './password-check-gate.js';
import { refreshTokenKeys } from './refresh-token-key.js';
import { type KeyRing, keyTimings, loadKeyRing } from './signing-keys.js';
import { TokenSigner } from './token-signer.js';

/** What the identity capability adds to the platform's services: its signing keys and the token signer. */
export interface IdentityServices extends PlatformContext {
  keyRing: KeyRing;
  signer: TokenSigner;
  /** Bounds the scrypt checks running at once in this process (docs/decisions.md D25). */
  passwordChecks: PasswordCheckGate;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The identity capability's services (`request.server.identity`). */
    identity: IdentityServices;
  }
}

/** Loads (or, on a new database, creates) the signing keys, derives the refresh-token key and builds the signer (spec-notes I4). */
export async function createIdentityServices(
  platform: PlatformContext,
  options: {
    keyRing?: KeyRing;
    maxConcurrentPasswordChecks?: number;
    log?: { error(obj: object, message: string): void };
  } = {},
): Promise<IdentityServices> {
  const { config, clock, random } = platform;
  const tuning = { ...DEFAULT_SIGNING_KEYS, ...config.signingKeys };
  const timings = keyTimings({
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    publishDelaySeconds: tuning.publishDelaySeconds,
  });
  const keyRing = options.keyRing ?? (await loadKeyRing(platform.database, platform, { timings }));
  // Every process reads whether a key was added (D111): a rotation reaches it with no restart.
  if (!options.keyRing) keyRing.startRefresh(tuning.refreshSeconds * 1000, options.log);
  const signer = new TokenSigner({
    keyRing,
    // The current secret's key signs; a previous secret's still verifies what it signed (D112).
    refreshKeys: refreshTokenKeys([config.secretKey, ...(config.previousSecretKeys ?? [])]),
    clock,
    random,
    issuer: config.authUrl,
    apiAudience: config.publicUrl,
  });
  return { ...platform, keyRing, signer, passwordChecks: new PasswordCheckGate(options.maxConcurrentPasswordChecks) };
}
