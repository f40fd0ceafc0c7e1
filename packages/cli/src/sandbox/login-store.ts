import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type StoredTokens, TokenManager, type TokenStore } from '@feira/sdk';
import { readJsonFile, writePrivateFile } from './private-file.js';

/** Where `feira login` keeps the seller's tokens (0600), beside the sandbox's other secrets. */
export const LOGIN_FILE = 'login.json';

export interface LoginFile {
  /** The sandbox the tokens were issued by. */
  url: string;
  /** The database that sandbox ran on (its sandbox.json record), password hidden; absent in logins of older versions (D70). */
  database?: string;
  client_id: string;
  /** The client's secret, needed for every refresh (the demo client's, or the one given to `feira login`). */
  client_secret: string;
  seller_login: string | null;
  /** The stores the seller picked (the token's `tenants` claim). */
  tenants: Array<{ id: string; name: string | null }>;
  tokens: StoredTokens;
}

export function readLogin(dataDir: string): LoginFile | undefined {
  const login = readJsonFile<LoginFile>(join(dataDir, LOGIN_FILE));
  return login && typeof login.tokens?.refreshToken === 'string' ? login : undefined;
}

export function writeLogin(dataDir: string, login: LoginFile): void {
  writePrivateFile(join(dataDir, LOGIN_FILE), `${JSON.stringify(login, null, 2)}\n`);
}

function removeLogin(dataDir: string): void {
  rmSync(join(dataDir, LOGIN_FILE), { force: true });
}

/** The SDK's TokenStore over the login file, so TokenManager refreshes and keeps the rotated refresh token there. */
function fileTokenStore(dataDir: string, login: LoginFile): TokenStore {
  return {
    get: async () => readLogin(dataDir)?.tokens ?? login.tokens,
    set: async (_key, tokens) => writeLogin(dataDir, { ...(readLogin(dataDir) ?? login), tokens }),
    delete: async () => removeLogin(dataDir),
  };
}

/** A TokenManager for the stored login: a valid access token, refreshed 60 s before it expires (spec-notes I5 rotation kept). */
export function loginTokens(dataDir: string, login: LoginFile): { manager: TokenManager; key: string } {
  const manager = new TokenManager({
    authUrl: login.url,
    clientId: login.client_id,
    clientSecret: login.client_secret,
    store: fileTokenStore(dataDir, login),
  });
  return { manager, key: 'login' };
}

/** The `tenants` claim of a Feira access token (read, not verified: the CLI only shows it). */
export function tenantsOfToken(accessToken: string): string[] {
  try {
    const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      tenants?: unknown;
    };
    return Array.isArray(payload.tenants) ? payload.tenants.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}
