import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { cryptoRandom } from '../core/random.js';
import { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import { testDatabaseTargets } from '../test-databases.js';
import { loadKeyRing, rotateSigningKey } from './signing-keys.js';

describe.each(testDatabaseTargets())('signing keys on $dialect', (target) => {
  let database: Database;
  const deps = { clock: new ManualClock(), random: cryptoRandom, box: new SecretBox('test-secret-key-not-for-production') };
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(() => database.close());

  it('spec-notes I4: processes starting together on a fresh database agree on one first signing key', async () => {
    const rings = await Promise.all([loadKeyRing(database, deps), loadKeyRing(database, deps), loadKeyRing(database, deps)]);
    const kids = new Set(rings.map((ring) => ring.current.kid));
    expect(kids.size).toBe(1);
    expect(await database.db.selectFrom('signing_keys').select('kid').execute()).toHaveLength(1);
  });

  it('spec-notes I4, D110: a rotation publishes the new key first, signs with it after the publish delay, and retires the old one once its tokens expired', async () => {
    const timings = { publishDelayMs: 600_000, retireAfterMs: 7_260_000 };
    const before = await loadKeyRing(database, deps, { timings });
    deps.clock.advanceSeconds(60);
    const after = await loadKeyRing(database, deps, { rotate: true, timings });
    const newKid = after.jwks.keys.map((k) => k.kid).find((kid) => kid !== before.current.kid) as string;
    expect(newKid).toBeDefined();
    // Published, not signing: the old key still signs, both verify.
    expect(after.current.kid).toBe(before.current.kid);
    expect(after.verificationKey(newKid)).toBeDefined();
    // A second rotation while one waits publishes nothing.
    expect((await rotateSigningKey(database, deps, timings)).created).toBe(false);
    deps.clock.advance(timings.publishDelayMs);
    expect(after.current.kid).toBe(newKid);
    expect(after.verificationKey(before.current.kid)).toBeDefined();
    expect(after.jwks.keys.map((k) => k.kid)).toEqual([newKid, before.current.kid]);
    deps.clock.advance(timings.retireAfterMs - 1000);
    expect(after.verificationKey(before.current.kid)).toBeDefined();
    deps.clock.advance(1000);
    expect(after.verificationKey(before.current.kid)).toBeUndefined();
    expect(after.jwks.keys.map((k) => k.kid)).toEqual([newKid]);
    const reloaded = await loadKeyRing(database, deps, { timings });
    expect(reloaded.current.kid).toBe(newKid);
  });
});
