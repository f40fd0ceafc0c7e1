import { DEFAULT_PLATFORM_SETTINGS, type PlatformSettings } from './settings.js';

export {
  DEFAULT_API_RATE_LIMIT,
  DEFAULT_GATEWAY_BASE_URLS,
  DEFAULT_RETENTION,
  DEFAULT_SECRET_REVEAL_REAUTH_SECONDS,
  DEFAULT_SIGNING_KEYS,
  type DispatcherTuning,
  GATEWAY_TIMEOUT_BOUNDS_MS,
  type GatewayBaseUrls,
  type RetentionPolicy,
  type SigningKeyTuning,
  type UploadLimits,
} from './settings.js';

/**
 * Platform configuration, validated and frozen: the platform settings of the one settings schema
 * (core/settings.ts declares each: flag, environment variable, default, bounds), every one filled in, and
 * what the process knows that no operator sets (the URLs resolved, the token lifetimes). The CLI reads flags and
 * environment against the schema; `platformConfig` assembles this; everything else receives it.
 */
export type PlatformConfig = Readonly<
  Omit<PlatformSettings, 'publicUrl' | 'adminToken' | 'secretKey'> & {
    /** {base_url}: public URL of the platform API, no trailing slash. */
    publicUrl: string;
    /** {auth_url}: public URL of the identity provider (spec-notes I1); the same as publicUrl in the sandbox. */
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
>;

export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 7200;
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** The settings that are groups of values: a config may give some values of one, the rest take their defaults. */
type SettingGroup = 'signingKeys' | 'dispatcher' | 'gateways' | 'uploads' | 'apiRateLimit' | 'retention';

/** What a config must be given; everything else has a default, value by value within a group. */
export type PlatformConfigInput = Pick<PlatformConfig, 'mode' | 'publicUrl' | 'adminToken' | 'secretKey'> &
  Partial<Omit<PlatformConfig, SettingGroup>> & { readonly [G in SettingGroup]?: Readonly<Partial<PlatformConfig[G]>> };

/**
 * The one place a `PlatformConfig` is assembled (the server, `feira dispatch`
 * and the test kit all call it): defaults filled in from the settings schema,
 * URLs without a trailing slash, the auth URL the public URL unless given
 * (spec-notes I1), frozen.
 */
export function platformConfig(input: PlatformConfigInput): PlatformConfig {
  const publicUrl = input.publicUrl.replace(/\/+$/, '');
  const defaults = DEFAULT_PLATFORM_SETTINGS;
  return Object.freeze({
    accessTokenTtlSeconds: DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
    bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
    ...defaults,
    ...input,
    signingKeys: Object.freeze({ ...defaults.signingKeys, ...input.signingKeys }),
    dispatcher: Object.freeze({ ...defaults.dispatcher, ...input.dispatcher }),
    gateways: Object.freeze({ ...defaults.gateways, ...input.gateways }),
    uploads: Object.freeze({ ...defaults.uploads, ...input.uploads }),
    apiRateLimit: Object.freeze({ ...defaults.apiRateLimit, ...input.apiRateLimit }),
    retention: Object.freeze({ ...defaults.retention, ...input.retention }),
    publicUrl,
    authUrl: (input.authUrl ?? publicUrl).replace(/\/+$/, ''),
  });
}
