import { randomBytes } from 'node:crypto';
import type { PlatformSettings } from '@feira/platform/cli';
import { loadOrCreateSecretFile } from './data-dir-secrets.js';
import { resolveStartSettings, type StartFlags, type StartSettings } from './start-config.js';

/** Where a secret came from, so the banner can say it without echoing what the operator passed. */
export type SecretSource = 'flag-or-env' | 'data-dir' | 'generated';

export interface StartConfig extends Omit<StartSettings, 'platform'> {
  /** The platform's settings, the admin token and server secret always there (given, or kept in the data folder). */
  platform: PlatformSettings & { adminToken: string; secretKey: string };
  adminTokenSource: SecretSource;
  /** Path of the admin-token file when the token lives in the data folder. */
  adminTokenPath: string | undefined;
}

const generateSecret = () => randomBytes(32).toString('base64url');

/**
 * The complete, frozen configuration of `feira start`: settings from flags and
 * environment, plus the admin token and the server secret key, each generated
 * once into the data folder (mode 0600) when not given, so a restart keeps
 * sessions, sealed keys and the admin token.
 */
export function loadStartConfig(
  flags: StartFlags,
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): Readonly<StartConfig> {
  const settings = resolveStartSettings(flags, env, cwd);
  let adminToken = settings.platform.adminToken;
  let adminTokenSource: SecretSource = 'flag-or-env';
  let adminTokenPath: string | undefined;
  if (adminToken === undefined) {
    const kept = loadOrCreateSecretFile(settings.dataDir, 'admin-token', generateSecret);
    adminToken = kept.value;
    adminTokenSource = kept.generated ? 'generated' : 'data-dir';
    adminTokenPath = kept.path;
  }
  const secretKey = settings.platform.secretKey ?? loadOrCreateSecretFile(settings.dataDir, 'secret-key', generateSecret).value;
  return Object.freeze({
    ...settings,
    platform: Object.freeze({ ...settings.platform, adminToken, secretKey }),
    adminTokenSource,
    adminTokenPath,
  });
}
