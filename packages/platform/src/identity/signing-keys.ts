import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';

export const SIGNING_ALG = 'ES256';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface KeyRing {
  /** The key that signs new tokens. */
  current: SigningKey;
  /** Public keys accepted for verification, current first (the previous key keeps working after a rotation). */
  verificationKeys: Map<string, CryptoKey>;
  /** For `/.well-known/jwks.json`. */
  jwks: { keys: JWK[] };
}

/** platform_settings key claimed by the one process that creates the first signing key. */
const FIRST_KEY_CLAIM = 'identity.first-signing-key';

async function createKey(
  database: Database,
  deps: { clock: Clock; random: Random; box: SecretBox },
  options: { firstKey: boolean },
) {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = deps.random.bytes(12).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  const now = deps.clock.now().toISOString();
  await database.db.transaction().execute(async (trx) => {
    if (options.firstKey) {
      // Several processes may start at once on a fresh database (`feira start` and `feira dispatch`):
      // only the one whose claim row goes in creates the first key; on PostgreSQL the others wait
      // on the unique key until it commits, then find its key.
      const claimed = await trx
        .insertInto('platform_settings')
        .values({ key: FIRST_KEY_CLAIM, value: kid, updated_at: now })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0) !== 1) return;
    }
    await trx.updateTable('signing_keys').set({ retired_at: now }).where('retired_at', 'is', null).execute();
    await trx
      .insertInto('signing_keys')
      .values({
        kid,
        alg: SIGNING_ALG,
        public_jwk: JSON.stringify(publicJwk),
        private_jwk_sealed: deps.box.seal(JSON.stringify(privateJwk)),
        created_at: now,
        retired_at: null,
      })
      .execute();
  });
}

/**
 * Loads the signing keys, generating the first one on first start (spec-notes I4).
 * Private keys are kept sealed in the database.
 */
export async function loadKeyRing(
  database: Database,
  deps: { clock: Clock; random: Random; box: SecretBox },
  options: { rotate?: boolean } = {},
): Promise<KeyRing> {
  const selectKeys = () =>
    database.db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid').execute();
  const existing = await database.db.selectFrom('signing_keys').select('kid').limit(1).execute();
  if (existing.length === 0 || options.rotate) {
    await createKey(database, deps, { firstKey: existing.length === 0 && !options.rotate });
  }
  let rows = await selectKeys();
  if (rows.length === 0) {
    // The first-key claim exists but the keys are gone (deleted by hand): start over with a new key.
    await createKey(database, deps, { firstKey: false });
    rows = await selectKeys();
  }
  const currentRow = rows.find((r) => r.retired_at === null) ?? rows[0];
  if (!currentRow) throw new Error('no signing key');
  const verificationKeys = new Map<string, CryptoKey>();
  const jwks: JWK[] = [];
  for (const row of rows.slice(0, 3)) {
    const jwk = JSON.parse(row.public_jwk) as JWK;
    verificationKeys.set(row.kid, (await importJWK(jwk, SIGNING_ALG)) as CryptoKey);
    jwks.push(jwk);
  }
  const privateKey = (await importJWK(JSON.parse(deps.box.open(currentRow.private_jwk_sealed)) as JWK, SIGNING_ALG)) as CryptoKey;
  return {
    current: { kid: currentRow.kid, privateKey, publicJwk: JSON.parse(currentRow.public_jwk) as JWK },
    verificationKeys,
    jwks: { keys: jwks },
  };
}
