// The identity provider's peer in the token benchmark (BENCHMARKS.md, "Token endpoint against
// node-oidc-provider"; D80): node-oidc-provider configured as Feira issues tokens — authorization code
// with PKCE (S256, required), ES256 JWT access tokens for one API (resource indicators), a refresh token
// with every exchange, rotated on every use — on a durable adapter in the same database Feira uses
// (a SQLite file with Feira's PRAGMAs, or a PostgreSQL schema), in a process of its own on 127.0.0.1.
// Codes are issued through its own models (Grant, AuthorizationCode), as its interaction flow would.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import SqliteDatabase from 'better-sqlite3';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import pg from 'pg';
import { childOptions, serveChild } from '../lib/child-protocol.js';

export interface OidcPeerOptions {
  /** `sqlite:<file>` or a postgres:// URL. */
  databaseUrl: string;
  searchPath?: string;
}

export interface PeerCodes {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  codeVerifier: string;
  codes: string[];
}

const options = childOptions<OidcPeerOptions>();
const API = 'http://127.0.0.1/api';
const REDIRECT_URI = 'https://integrator.example/callback';
const CLIENT_ID = 'bench-peer-client';
const CLIENT_SECRET = randomBytes(32).toString('base64url');
const SCOPE = 'open:order-order:read';

/** One table for every model, as the adapter examples of node-oidc-provider keep them. */
interface Store {
  upsert(name: string, id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
  find(name: string, id: string): Promise<AdapterPayload | undefined>;
  findBy(name: string, column: 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined>;
  consume(name: string, id: string): Promise<void>;
  destroy(name: string, id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
  close(): Promise<void>;
}

const TABLE = `create table if not exists oidc_models (
  name text not null, id text not null, payload text not null, grant_id text, uid text, user_code text,
  expires_at bigint, consumed_at bigint, primary key (name, id))`;
const now = () => Math.floor(Date.now() / 1000);
const live = (row: { payload: string; expires_at: number | string | null; consumed_at: number | string | null } | undefined) => {
  if (!row || (row.expires_at !== null && Number(row.expires_at) <= now())) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: Number(row.consumed_at) };
};

function sqliteStore(file: string): Store {
  const db = new SqliteDatabase(file);
  // The same durability as Feira's SQLite files (storage/database.ts): WAL, synchronous NORMAL.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(TABLE);
  db.exec('create index if not exists oidc_models_grant on oidc_models (grant_id)');
  const upsert = db.prepare(
    `insert into oidc_models (name, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
     values (?, ?, ?, ?, ?, ?, ?, null)
     on conflict (name, id) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
       user_code = excluded.user_code, expires_at = excluded.expires_at`,
  );
  const find = db.prepare('select payload, expires_at, consumed_at from oidc_models where name = ? and id = ?');
  const byUid = db.prepare('select payload, expires_at, consumed_at from oidc_models where name = ? and uid = ?');
  const byUserCode = db.prepare('select payload, expires_at, consumed_at from oidc_models where name = ? and user_code = ?');
  const consume = db.prepare('update oidc_models set consumed_at = ? where name = ? and id = ?');
  const destroy = db.prepare('delete from oidc_models where name = ? and id = ?');
  const revoke = db.prepare('delete from oidc_models where grant_id = ?');
  type Row = { payload: string; expires_at: number | null; consumed_at: number | null } | undefined;
  return {
    async upsert(name, id, payload, expiresIn) {
      upsert.run(
        name,
        id,
        JSON.stringify(payload),
        payload.grantId ?? null,
        payload.uid ?? null,
        payload.userCode ?? null,
        expiresIn ? now() + expiresIn : null,
      );
    },
    find: async (name, id) => live(find.get(name, id) as Row),
    findBy: async (name, column, value) => live((column === 'uid' ? byUid : byUserCode).get(name, value) as Row),
    async consume(name, id) {
      consume.run(now(), name, id);
    },
    async destroy(name, id) {
      destroy.run(name, id);
    },
    async revokeByGrantId(grantId) {
      revoke.run(grantId);
    },
    close: async () => {
      db.close();
    },
  };
}

async function postgresStore(url: string, searchPath: string | undefined): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
  });
  await pool.query(TABLE);
  await pool.query('create index if not exists oidc_models_grant on oidc_models (grant_id)');
  // Named statements: prepared once per connection, as Kysely's pg driver does not, so the peer is not slowed by parsing.
  const q = (name: string, text: string, values: unknown[]) => pool.query({ name, text, values });
  return {
    async upsert(name, id, payload, expiresIn) {
      await q(
        'oidc-upsert',
        `insert into oidc_models (name, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
         values ($1, $2, $3, $4, $5, $6, $7, null)
         on conflict (name, id) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
           user_code = excluded.user_code, expires_at = excluded.expires_at`,
        [
          name,
          id,
          JSON.stringify(payload),
          payload.grantId ?? null,
          payload.uid ?? null,
          payload.userCode ?? null,
          expiresIn ? now() + expiresIn : null,
        ],
      );
    },
    async find(name, id) {
      const { rows } = await q(
        'oidc-find',
        'select payload, expires_at, consumed_at from oidc_models where name = $1 and id = $2',
        [name, id],
      );
      return live(rows[0]);
    },
    async findBy(name, column, value) {
      const { rows } = await q(
        `oidc-find-${column}`,
        `select payload, expires_at, consumed_at from oidc_models where name = $1 and ${column} = $2`,
        [name, value],
      );
      return live(rows[0]);
    },
    async consume(name, id) {
      await q('oidc-consume', 'update oidc_models set consumed_at = $1 where name = $2 and id = $3', [now(), name, id]);
    },
    async destroy(name, id) {
      await q('oidc-destroy', 'delete from oidc_models where name = $1 and id = $2', [name, id]);
    },
    async revokeByGrantId(grantId) {
      await q('oidc-revoke', 'delete from oidc_models where grant_id = $1', [grantId]);
    },
    close: () => pool.end(),
  };
}

const store = options.databaseUrl.startsWith('sqlite:')
  ? sqliteStore(options.databaseUrl.slice('sqlite:'.length))
  : await postgresStore(options.databaseUrl, options.searchPath);

class DurableAdapter implements Adapter {
  constructor(private readonly name: string) {}
  upsert(id: string, payload: AdapterPayload, expiresIn: number) {
    return store.upsert(this.name, id, payload, expiresIn);
  }
  find(id: string) {
    return store.find(this.name, id);
  }
  findByUserCode(userCode: string) {
    return store.findBy(this.name, 'user_code', userCode);
  }
  findByUid(uid: string) {
    return store.findBy(this.name, 'uid', uid);
  }
  consume(id: string) {
    return store.consume(this.name, id);
  }
  destroy(id: string) {
    return store.destroy(this.name, id);
  }
  revokeByGrantId(grantId: string) {
    return store.revokeByGrantId(grantId);
  }
}

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench-es256', alg: 'ES256', use: 'sig' };
const provider = new Provider('http://127.0.0.1', {
  adapter: DurableAdapter,
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      // The only key is ES256 (no RS256 key as the default would want); no ID token is issued without openid.
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [jwk as never] },
  scopes: [SCOPE],
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => API,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: SCOPE,
        audience: API,
        accessTokenTTL: 7200,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
  pkce: { required: () => true },
  issueRefreshToken: async () => true,
  rotateRefreshToken: () => true,
  ttl: { AccessToken: 7200, AuthorizationCode: 600, RefreshToken: 30 * 24 * 3600, Grant: 30 * 24 * 3600 },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
});

const server = createServer(provider.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;

serveChild(
  { port },
  {
    /** Codes bound to one PKCE challenge, issued through the provider's own models as its consent step would. */
    async issueCodes(args): Promise<PeerCodes> {
      const { count } = args as { count: number };
      const codeVerifier = randomBytes(32).toString('base64url');
      const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
      const client = await provider.Client.find(CLIENT_ID).catch((error: { error_description?: string }) => {
        throw new Error(`peer client: ${error.error_description ?? String(error)}`);
      });
      if (!client) throw new Error('peer client missing');
      const codes: string[] = [];
      for (let i = 0; i < count; i++) {
        const accountId = `seller-${i}`;
        const grant = new provider.Grant({ accountId, clientId: CLIENT_ID });
        grant.addResourceScope(API, SCOPE);
        const grantId = await grant.save();
        const code = new provider.AuthorizationCode({
          accountId,
          client,
          grantId,
          redirectUri: REDIRECT_URI,
          scope: SCOPE,
          resource: API,
          codeChallenge,
          codeChallengeMethod: 'S256',
          authTime: now(),
          gty: 'authorization_code',
        });
        codes.push(await code.save());
      }
      return { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI, codeVerifier, codes };
    },
    async cpuMicros() {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
  },
  async () => {
    server.close();
    await store.close();
  },
);
