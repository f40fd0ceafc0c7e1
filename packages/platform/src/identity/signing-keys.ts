import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../core/clock.js';
import { DEFAULT_ACCESS_TOKEN_TTL_SECONDS, DEFAULT_SIGNING_KEYS } from '../core/config.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import type { SealedColumn } from '../storage/secret-reseal.js';

export const SIGNING_ALG = 'ES256';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * A signing key's life (docs/deploy.md "Rotating keys", docs/decisions.md D110): `next` is published in
 * the JWKS but does not sign yet, so every verifier (every process of the platform, every client's JWKS
 * cache) has it before the first token signed with it; `current` signs; `previous` no longer signs but
 * stays published until every token it signed has expired; `retired` is gone from the JWKS and
 * verifies nothing. The states follow from the key's times and the clock, so every process on the
 * database computes the same ones without being told, and a moved sandbox clock moves them.
 */
type SigningKeyState = 'next' | 'current' | 'previous' | 'retired';

/** How long the states last. */
export interface KeyTimings {
  /** How long a new key is published before it signs (at least the JWKS cache's max-age and the key ring's refresh). */
  publishDelayMs: number;
  /** How long a key stays published after it stopped signing: the longest lifetime of what it signed, plus clock skew. */
  retireAfterMs: number;
}

/** Clock skew allowed for beyond a token's lifetime before the key that signed it leaves the JWKS. */
const RETIRE_SKEW_MS = 60_000;

/** The timings of a platform whose access and ID tokens live `accessTokenTtlSeconds` (both have that lifetime). */
export function keyTimings(options: { accessTokenTtlSeconds: number; publishDelaySeconds?: number | undefined }): KeyTimings {
  return {
    publishDelayMs: (options.publishDelaySeconds ?? DEFAULT_SIGNING_KEYS.publishDelaySeconds) * 1000,
    retireAfterMs: options.accessTokenTtlSeconds * 1000 + RETIRE_SKEW_MS,
  };
}

/** A key as the admin API and `feira keys status` show it. */
export interface SigningKeyView {
  kid: string;
  state: SigningKeyState;
  /** In the JWKS from then. */
  published_at: string;
  signs_from: string;
  /** When a newer key took over signing (null while none did). */
  signs_until: string | null;
  /** When it leaves the JWKS (null while it signs or waits to). */
  retires_at: string | null;
}

interface KeyRow {
  kid: string;
  public_jwk: string;
  private_jwk_sealed: string;
  created_at: string;
  signs_from: string | null;
}

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  verifyKey: CryptoKey;
  /** Opened for the keys that sign or will (a previous key never signs again). */
  privateKey: CryptoKey | null;
  createdAtMs: number;
  signsFromMs: number;
}

interface KeyPlace<K> {
  key: K;
  state: SigningKeyState;
  signsUntilMs: number | null;
  retiresAtMs: number | null;
}

/** The states of keys at `nowMs`: the latest one whose `signs_from` has come signs; the ones before it retire in turn. */
function placeKeys<K extends { signsFromMs: number; createdAtMs: number; kid: string }>(
  keys: readonly K[],
  nowMs: number,
  retireAfterMs: number,
): Array<KeyPlace<K>> {
  const sorted = [...keys].sort(
    (a, b) => a.signsFromMs - b.signsFromMs || a.createdAtMs - b.createdAtMs || (a.kid < b.kid ? -1 : 1),
  );
  let current = -1;
  sorted.forEach((key, i) => {
    if (key.signsFromMs <= nowMs) current = i;
  });
  // Only a clock behind the one that wrote the first key finds none signing yet: the first signs.
  if (current === -1) current = 0;
  return sorted.map((key, i) => {
    if (i === current) return { key, state: 'current', signsUntilMs: null, retiresAtMs: null };
    if (i > current) return { key, state: 'next', signsUntilMs: null, retiresAtMs: null };
    const signsUntilMs = (sorted[i + 1] as K).signsFromMs;
    const retiresAtMs = signsUntilMs + retireAfterMs;
    return { key, state: nowMs < retiresAtMs ? 'previous' : 'retired', signsUntilMs, retiresAtMs };
  });
}

const toKeyTimes = (row: KeyRow) => ({
  kid: row.kid,
  createdAtMs: Date.parse(row.created_at),
  signsFromMs: Date.parse(row.signs_from ?? row.created_at),
});

/** Every key with its state and dates (the admin API's list), newest first. */
export async function signingKeyViews(database: Database, clock: Clock, timings: KeyTimings): Promise<SigningKeyView[]> {
  const rows = await database.db.selectFrom('signing_keys').select(['kid', 'created_at', 'signs_from']).execute();
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return placeKeys(
    rows.map((row) => toKeyTimes({ ...row, public_jwk: '', private_jwk_sealed: '' })),
    clock.now().getTime(),
    timings.retireAfterMs,
  )
    .reverse()
    .map(({ key, state, signsUntilMs, retiresAtMs }) => ({
      kid: key.kid,
      state,
      published_at: new Date(key.createdAtMs).toISOString(),
      signs_from: new Date(key.signsFromMs).toISOString(),
      signs_until: iso(signsUntilMs),
      retires_at: iso(retiresAtMs),
    }));
}

/**
 * The signing keys one process holds: what it signs with, what it verifies with and what its JWKS
 * publishes, each computed from the keys' times at the clock's now. It reads the database again every
 * refresh (`startRefresh`), one aggregate telling whether a key was added, and the keys themselves only
 * then; never on a request.
 */
export class KeyRing {
  readonly #database: Database;
  readonly #deps: { clock: Clock; box: Pick<SecretBox, 'open'> };
  readonly #timings: KeyTimings;
  #keys: LoadedKey[];
  #version: string;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<boolean> | undefined;

  private constructor(
    database: Database,
    deps: { clock: Clock; box: Pick<SecretBox, 'open'> },
    timings: KeyTimings,
    keys: LoadedKey[],
    version: string,
  ) {
    this.#database = database;
    this.#deps = deps;
    this.#timings = timings;
    this.#keys = keys;
    this.#version = version;
  }

  static async load(
    database: Database,
    deps: { clock: Clock; box: Pick<SecretBox, 'open'> },
    timings: KeyTimings,
  ): Promise<KeyRing> {
    const version = await keysVersion(database);
    const keys = await loadKeys(database, deps, timings, []);
    return new KeyRing(database, deps, timings, keys, version);
  }

  get timings(): KeyTimings {
    return this.#timings;
  }

  #placed() {
    return placeKeys(this.#keys, this.#deps.clock.now().getTime(), this.#timings.retireAfterMs);
  }

  /** The key that signs new tokens now. */
  get current(): SigningKey {
    const current = this.#placed().find((p) => p.state === 'current')?.key as LoadedKey;
    if (!current.privateKey) throw new Error(`signing key ${current.kid} could not be opened`);
    return { kid: current.kid, privateKey: current.privateKey, publicJwk: current.publicJwk };
  }

  /** The public key of `kid`, while it is published (next, current or previous). */
  verificationKey(kid: string): CryptoKey | undefined {
    const placed = this.#placed().find((p) => p.key.kid === kid);
    return placed && placed.state !== 'retired' ? placed.key.verifyKey : undefined;
  }

  /** For `/.well-known/jwks.json`: every published key, the one signing first, then the next, then the previous ones. */
  get jwks(): { keys: JWK[] } {
    const order: Record<SigningKeyState, number> = { current: 0, next: 1, previous: 2, retired: 3 };
    const published = this.#placed()
      .filter((p) => p.state !== 'retired')
      .sort((a, b) => order[a.state] - order[b.state] || b.key.signsFromMs - a.key.signsFromMs);
    return { keys: published.map((p) => p.key.publicJwk) };
  }

  /**
   * Reads whether a key was added since the last read (one aggregate) and, if so, loads it. A key whose
   * private part cannot be opened leaves the ring as it was (and throws): this process keeps signing with
   * the key it has, which stays published.
   */
  refresh(): Promise<boolean> {
    this.#refreshing ??= (async () => {
      try {
        const version = await keysVersion(this.#database);
        if (version === this.#version) return false;
        this.#keys = await loadKeys(this.#database, this.#deps, this.#timings, this.#keys);
        this.#version = version;
        return true;
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /** Refreshes every `intervalMs` until `stop()`; a failed refresh is reported and tried again next time. */
  startRefresh(intervalMs: number, log?: { error(obj: object, message: string): void }): void {
    this.stop();
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        log?.error({ err: error }, 'signing keys: reload failed; this process keeps the keys it has'),
      );
    }, intervalMs).unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** Changes whenever a key is added (keys are never updated in place, and never deleted by the platform). */
async function keysVersion(database: Database): Promise<string> {
  const row = await database.db
    .selectFrom('signing_keys')
    .select((eb) => [eb.fn.countAll<string | number>().as('keys'), eb.fn.max('created_at').as('latest')])
    .executeTakeFirst();
  return `${row?.keys ?? 0}:${row?.latest ?? ''}`;
}

/** Every key's public part, and the private part of those that sign now or will; keys already loaded are reused. */
async function loadKeys(
  database: Database,
  deps: { clock: Clock; box: Pick<SecretBox, 'open'> },
  timings: KeyTimings,
  known: readonly LoadedKey[],
): Promise<LoadedKey[]> {
  const rows: KeyRow[] = await database.db
    .selectFrom('signing_keys')
    .select(['kid', 'public_jwk', 'private_jwk_sealed', 'created_at', 'signs_from'])
    .execute();
  const placed = placeKeys(
    rows.map((row) => ({ ...toKeyTimes(row), row })),
    deps.clock.now().getTime(),
    timings.retireAfterMs,
  );
  const keys: LoadedKey[] = [];
  for (const { key, state } of placed) {
    const { row } = key;
    const loaded = known.find((k) => k.kid === row.kid);
    const needsPrivate = state === 'current' || state === 'next';
    if (loaded && (loaded.privateKey || !needsPrivate)) {
      keys.push(loaded);
      continue;
    }
    const publicJwk = JSON.parse(row.public_jwk) as JWK;
    keys.push({
      kid: row.kid,
      publicJwk,
      verifyKey: (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey,
      privateKey: needsPrivate
        ? ((await importJWK(JSON.parse(deps.box.open(row.private_jwk_sealed)) as JWK, SIGNING_ALG)) as CryptoKey)
        : null,
      createdAtMs: key.createdAtMs,
      signsFromMs: key.signsFromMs,
    });
  }
  return keys;
}

/** platform_settings key claimed by the one process that creates the first signing key. */
const FIRST_KEY_CLAIM = 'identity.first-signing-key';
/** platform_settings row every rotation writes first, so that two rotations at once take turns. */
const ROTATION_TURN = 'identity.signing-key-rotation';

async function newKeyRow(deps: { clock: Clock; random: Random; box: Pick<SecretBox, 'seal'> }, signsFrom: Date) {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = deps.random.bytes(12).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    alg: SIGNING_ALG,
    public_jwk: JSON.stringify(publicJwk),
    private_jwk_sealed: deps.box.seal(JSON.stringify(privateJwk)),
    created_at: deps.clock.now().toISOString(),
    signs_from: signsFrom.toISOString(),
    retired_at: null,
  };
}

/** The first key of a database, signing at once: only the process whose claim row goes in creates it. */
async function createFirstKey(database: Database, deps: { clock: Clock; random: Random; box: Pick<SecretBox, 'seal'> }) {
  const row = await newKeyRow(deps, deps.clock.now());
  await database.db.transaction().execute(async (trx) => {
    // Several processes may start at once on a fresh database (`feira start` and `feira dispatch`):
    // only the one whose claim row goes in creates the first key; on PostgreSQL the others wait
    // on the unique key until it commits, then find its key.
    const claimed = await trx
      .insertInto('platform_settings')
      .values({ key: FIRST_KEY_CLAIM, value: row.kid, updated_at: row.created_at })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0) !== 1) return;
    await trx.insertInto('signing_keys').values(row).execute();
  });
}

/** What a rotation did: the key it published, or the one already waiting to sign. */
export interface Rotation {
  created: boolean;
  kid: string;
  publishedAt: string;
  signsFrom: string;
}

/**
 * Publishes a new signing key that signs `publishDelayMs` later (D110). While a key waits to sign,
 * another rotation publishes nothing and answers with the waiting key, so a repeated command cannot
 * push keys into signing faster than processes load them.
 */
export async function rotateSigningKey(
  database: Database,
  deps: { clock: Clock; random: Random; box: Pick<SecretBox, 'seal'> },
  timings: Pick<KeyTimings, 'publishDelayMs'>,
): Promise<Rotation> {
  const now = deps.clock.now();
  const row = await newKeyRow(deps, new Date(now.getTime() + timings.publishDelayMs));
  return database.db.transaction().execute(async (trx) => {
    // The first write of the transaction: on PostgreSQL it holds the row's lock, on SQLite the write lock, until commit.
    await trx
      .insertInto('platform_settings')
      .values({ key: ROTATION_TURN, value: row.kid, updated_at: row.created_at })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: row.kid, updated_at: row.created_at }))
      .execute();
    const waiting = await trx
      .selectFrom('signing_keys')
      .select(['kid', 'created_at', 'signs_from'])
      .where('signs_from', '>', now.toISOString())
      .orderBy('signs_from')
      .executeTakeFirst();
    if (waiting) {
      return {
        created: false,
        kid: waiting.kid,
        publishedAt: waiting.created_at,
        signsFrom: waiting.signs_from ?? waiting.created_at,
      };
    }
    await trx.insertInto('signing_keys').values(row).execute();
    return { created: true, kid: row.kid, publishedAt: row.created_at, signsFrom: row.signs_from };
  });
}

/**
 * Loads the signing keys, generating the first one on first start (spec-notes I4). Private keys are
 * kept sealed in the database. `rotate` publishes a new key first, through the same states as
 * `feira keys rotate` (it signs after the publish delay).
 */
export async function loadKeyRing(
  database: Database,
  deps: { clock: Clock; random: Random; box: SecretBox },
  options: { rotate?: boolean; timings?: KeyTimings } = {},
): Promise<KeyRing> {
  const timings = options.timings ?? keyTimings({ accessTokenTtlSeconds: DEFAULT_ACCESS_TOKEN_TTL_SECONDS });
  const any = await database.db.selectFrom('signing_keys').select('kid').limit(1).execute();
  if (any.length === 0) {
    await createFirstKey(database, deps);
    const created = await database.db.selectFrom('signing_keys').select('kid').limit(1).execute();
    // The first-key claim exists but the keys are gone (deleted by hand): start over with a new key.
    if (created.length === 0)
      await database.db
        .insertInto('signing_keys')
        .values(await newKeyRow(deps, deps.clock.now()))
        .execute();
  }
  if (options.rotate) await rotateSigningKey(database, deps, timings);
  return KeyRing.load(database, deps, timings);
}

/** The sealed values identity keeps: each signing key's private JWK (re-sealed when the server secret changes). */
export const identitySealedColumns: readonly SealedColumn[] = [
  { table: 'signing_keys', key: 'kid', column: 'private_jwk_sealed' },
];
