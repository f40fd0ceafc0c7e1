import type { OutboundPolicy } from '../http/address-policy.js';

/**
 * Platform configuration, validated and frozen. It is read from flags and
 * environment in exactly one place (the CLI's config loader); everything else
 * receives this object.
 */
export interface PlatformConfig {
  /** `sandbox` (local development: loopback and http allowed for outbound calls) or `strict` (production rules). */
  mode: 'sandbox' | 'strict';
  /** {base_url}: public URL of the platform API, no trailing slash. */
  publicUrl: string;
  /** {auth_url}: public URL of the identity provider (SPEC-DECISIONS I1); the same as publicUrl in the sandbox. */
  authUrl: string;
  /** Bearer token of the admin API. */
  adminToken: string;
  /** Server secret: seals signing keys and webhook secrets at rest, signs cookies and cursors. Never logged. */
  secretKey: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Largest accepted request body (1 MiB). */
  bodyLimitBytes: number;
}

export function outboundPolicyOf(config: Pick<PlatformConfig, 'mode'>): OutboundPolicy {
  return config.mode === 'strict' ? 'strict' : 'sandbox';
}

export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 7200;
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
