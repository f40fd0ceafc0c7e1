import { isScope, type Scope } from '@feira/contract';
import type { Kysely, Selectable } from 'kysely';
import { constantTimeEqual, sha256Hex } from '../core/hashing.js';
import { randomToken } from '../core/random.js';
import type { Schema } from '../storage/schema.js';
import { type ApiRateLimit, forgetRefusedBuckets } from './api-rate-limit.js';
import type { AccountDeps } from './seller-repository.js';

/** A client application (spec, Authentication §2) as the admin API shows it: never the secret or its hash. */
export interface ClientApp {
  /** The public client_id. */
  id: string;
  name: string;
  redirectUris: string[];
  scopes: Scope[];
  defaultScopes: Scope[];
  termsOfUseUrl: string | null;
  privacyPolicyUrl: string | null;
  createdAt: string;
  /** `none`: a public client (browser or mobile app), no secret, PKCE required (spec-notes I13). */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** The origins its browser pages call from: its redirect URIs' origins (D45), the CORS allow-list. */
  allowedOrigins: string[];
  /** The API rate limit the operator set for the app (spec-notes I20); null: the platform's default applies. */
  rateLimit: ApiRateLimit | null;
}

/** How a client authenticates at the token endpoint (RFC 7591 §2); a confidential client may use Basic or the body either way. */
const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

function isAuthMethod(value: string): value is TokenEndpointAuthMethod {
  return (TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(value);
}

/** The origins (scheme, host, port) of redirect URIs, each once, in order (D45). */
function originsOf(redirectUris: readonly string[]): string[] {
  return [...new Set(redirectUris.filter((uri) => URL.canParse(uri)).map((uri) => new URL(uri).origin))];
}

/** What the token endpoint needs to authenticate a client: see `verifyClientSecret`. */
export interface ClientWithSecretHash extends ClientApp {
  secretHash: string;
}

export interface NewClient {
  name: string;
  redirectUris: string[];
  scopes: Scope[];
  defaultScopes: Scope[];
  termsOfUseUrl?: string | null;
  privacyPolicyUrl?: string | null;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

export type ClientRow = Selectable<Schema['clients']>;

function parseScopes(json: string): Scope[] {
  return (JSON.parse(json) as string[]).filter(isScope);
}

/** A `clients` row as the client it holds, its secret hash included (for a read that joins `clients` to more). */
export function toClient(row: ClientRow): ClientWithSecretHash {
  return {
    id: row.id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    scopes: parseScopes(row.scopes),
    defaultScopes: parseScopes(row.default_scopes),
    termsOfUseUrl: row.terms_of_use_url,
    privacyPolicyUrl: row.privacy_policy_url,
    createdAt: row.created_at,
    tokenEndpointAuthMethod: isAuthMethod(row.token_endpoint_auth_method)
      ? row.token_endpoint_auth_method
      : 'client_secret_basic',
    allowedOrigins: originsOf(JSON.parse(row.redirect_uris) as string[]),
    rateLimit:
      row.rate_limit_per_second !== null && row.rate_limit_burst !== null
        ? { requestsPerSecond: Number(row.rate_limit_per_second), burst: Number(row.rate_limit_burst) }
        : null,
    secretHash: row.secret_hash,
  };
}

/** A `clients` row without its secret hash (what the admin list selects) as a ClientApp. */
/** Columns of `clients` that may leave the database through the admin API (never the secret hash). */
const CLIENT_PUBLIC_COLUMNS = [
  'id',
  'name',
  'redirect_uris',
  'scopes',
  'default_scopes',
  'terms_of_use_url',
  'privacy_policy_url',
  'created_at',
  'token_endpoint_auth_method',
  'rate_limit_per_second',
  'rate_limit_burst',
] as const;

/** The query the admin list of client apps pages through (list engine): public columns only. */
export function clientListQuery(db: Kysely<Schema>) {
  return db.selectFrom('clients').select(CLIENT_PUBLIC_COLUMNS);
}

export function clientFromPublicRow(row: Omit<ClientRow, 'secret_hash'>): ClientApp {
  return withoutSecret(toClient({ ...row, secret_hash: '' }));
}

function withoutSecret({ secretHash: _secretHash, ...client }: ClientWithSecretHash): ClientApp {
  return client;
}

/**
 * Registers a client application. The secret (32 random bytes, base64url) is
 * returned here only; the database keeps its SHA-256, which is enough for a
 * 256-bit random value. A public client (`none`) gets no secret: the stored
 * hash is of a random value nobody is told, so no secret ever matches.
 * Validation of scopes and URLs happens before (client-rules.ts).
 */
export async function createClient(
  db: Kysely<Schema>,
  input: NewClient & { tokenEndpointAuthMethod?: Exclude<TokenEndpointAuthMethod, 'none'> },
  deps: AccountDeps,
): Promise<{ client: ClientApp; clientSecret: string }>;
export async function createClient(
  db: Kysely<Schema>,
  input: NewClient,
  deps: AccountDeps,
): Promise<{ client: ClientApp; clientSecret: string | null }>;
export async function createClient(
  db: Kysely<Schema>,
  input: NewClient,
  deps: AccountDeps,
): Promise<{ client: ClientApp; clientSecret: string | null }> {
  const id = `client_${randomToken(deps.random, 9)}`;
  const clientSecret = randomToken(deps.random, 32);
  const row: ClientRow = {
    id,
    name: input.name,
    secret_hash: sha256Hex(clientSecret),
    redirect_uris: JSON.stringify(input.redirectUris),
    scopes: JSON.stringify(input.scopes),
    default_scopes: JSON.stringify(input.defaultScopes),
    terms_of_use_url: input.termsOfUseUrl ?? null,
    privacy_policy_url: input.privacyPolicyUrl ?? null,
    created_at: deps.clock.now().toISOString(),
    token_endpoint_auth_method: input.tokenEndpointAuthMethod ?? 'client_secret_basic',
    rate_limit_per_second: null,
    rate_limit_burst: null,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('clients').values(row).execute();
    await recordOrigins(trx, id, input.redirectUris);
  });
  return { client: withoutSecret(toClient(row)), clientSecret: row.token_endpoint_auth_method === 'none' ? null : clientSecret };
}

/** Adds the origins of these redirect URIs to the client's CORS allow-list (D45); an origin already there stays once. */
async function recordOrigins(db: Kysely<Schema>, clientId: string, redirectUris: readonly string[]): Promise<void> {
  const origins = originsOf(redirectUris);
  if (origins.length === 0) return;
  await db
    .insertInto('client_origins')
    .values(origins.map((origin) => ({ origin, client_id: clientId })))
    .onConflict((oc) => oc.columns(['origin', 'client_id']).doNothing())
    .execute();
}

/** Whether some registered client's pages call from this origin (a CORS preflight names no client: D45). */
export async function originRegistered(db: Kysely<Schema>, origin: string): Promise<boolean> {
  const row = await db.selectFrom('client_origins').select('client_id').where('origin', '=', origin).executeTakeFirst();
  return row !== undefined;
}

/** Whether this client's pages call from this origin (D45). */
export async function originOfClient(db: Kysely<Schema>, clientId: string, origin: string): Promise<boolean> {
  const row = await db
    .selectFrom('client_origins')
    .select('client_id')
    .where('origin', '=', origin)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The client with its secret hash (for the token endpoint); `undefined` when no such client_id. */
export async function findClientById(db: Kysely<Schema>, id: string): Promise<ClientWithSecretHash | undefined> {
  const row = await db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toClient(row);
}

/** The client as the admin API shows it (no secret hash). */
export async function findPublicClientById(db: Kysely<Schema>, id: string): Promise<ClientApp | undefined> {
  const client = await findClientById(db, id);
  return client && withoutSecret(client);
}

/** The names of the given clients by client_id; an id with no client (deleted) is absent. */
export async function clientNamesById(db: Kysely<Schema>, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('clients')
    .select(['id', 'name'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function clientExists(db: Kysely<Schema>, id: string): Promise<boolean> {
  const row = await db.selectFrom('clients').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** Sets the app's API rate limit (spec-notes I20), or with null goes back to the platform's default; false when no such app. */
export async function setClientRateLimit(db: Kysely<Schema>, id: string, limit: ApiRateLimit | null): Promise<boolean> {
  const result = await db
    .updateTable('clients')
    .set({ rate_limit_per_second: limit?.requestsPerSecond ?? null, rate_limit_burst: limit?.burst ?? null })
    .where('id', '=', id)
    .executeTakeFirst();
  forgetRefusedBuckets(db);
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the client app row (what refers to it is the caller's to remove first: see admin/account-changes.ts). */
export async function deleteClientApp(db: Kysely<Schema>, id: string): Promise<void> {
  await db.deleteFrom('client_origins').where('client_id', '=', id).execute();
  await db.deleteFrom('api_rate_buckets').where('client_id', '=', id).execute();
  await db.deleteFrom('clients').where('id', '=', id).execute();
}

/** Constant-time check of a presented client secret against the stored hash. */
export function verifyClientSecret(client: Pick<ClientWithSecretHash, 'secretHash'>, presentedSecret: string): boolean {
  return constantTimeEqual(sha256Hex(presentedSecret), client.secretHash);
}

/** Adds a redirect URI to a client if it is not there yet (the sandbox's demo client follows the port it runs on). */
export async function addRedirectUri(db: Kysely<Schema>, id: string, redirectUri: string): Promise<boolean> {
  const client = await findClientById(db, id);
  if (!client || client.redirectUris.includes(redirectUri)) return false;
  await db
    .updateTable('clients')
    .set({ redirect_uris: JSON.stringify([...client.redirectUris, redirectUri]) })
    .where('id', '=', id)
    .execute();
  await recordOrigins(db, id, [redirectUri]);
  return true;
}

export async function countClients(db: Kysely<Schema>): Promise<number> {
  const row = await db
    .selectFrom('clients')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
