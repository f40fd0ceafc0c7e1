import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { cryptoRandom } from '../core/random.js';
import { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import { testDatabaseTargets } from '../test-databases.js';
import { loadKeyRing } from './signing-keys.js';

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

  it('spec-notes I4: a rotation retires the current key but keeps it for verification', async () => {
    const before = await loadKeyRing(database, deps);
    deps.clock.advanceSeconds(60);
    const after = await loadKeyRing(database, deps, { rotate: true });
    expect(after.current.kid).not.toBe(before.current.kid);
    expect([...after.verificationKeys.keys()]).toEqual(expect.arrayContaining([before.current.kid, after.current.kid]));
    const reloaded = await loadKeyRing(database, deps);
    expect(reloaded.current.kid).toBe(after.current.kid);
  });
});
