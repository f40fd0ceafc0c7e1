// A store's uploads take from a bucket of their own (docs/security.md, "Tenant
// isolation"): a tenant sending files without pause is refused before its body
// is read, and only that store is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../src/testing.js';
import { putTable, vtexCsv } from './freight-kit.js';

const RATE = { storeUploadsPerSecond: 1, storeUploadBurst: 2 };
const TABLE = vtexCsv(['01000000;01999999;Capital;0;30000;12,90;0;0;;3;BRA;0']);

describe.each(testDatabaseTargets())('a store’s upload rate on $dialect', (target) => {
  let platform: TestPlatform;
  let hostile: string;
  let other: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { config: testConfig({ uploads: RATE }) });
    const seller = await platform.createSeller({ tenants: 2 });
    [hostile, other] = seller.tenantIds as [string, string];
  });
  afterAll(() => platform?.close());

  it("D96, D164: past its upload burst a store gets 429 with Retry-After before its body is read (a large one's connection closed, and any one's sent again before the Retry-After, after holding it until then), the table unchanged; another store and the marketplace upload as before; the bucket refills with the clock", async () => {
    for (let i = 0; i < RATE.storeUploadBurst; i++)
      expect((await putTable(platform, hostile, `t${i}`, TABLE)).statusCode).toBe(201);

    const refused = await putTable(platform, hostile, 'late', TABLE);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    // A small body is dropped as it arrives, so its sender reads the 429; a large one's connection is closed unread.
    expect(refused.headers.connection).not.toBe('close');
    expect(refused.json()).toMatchObject({ slug: 'RATE_LIMITED', message: expect.stringContaining('uploads') });
    // Sent again without waiting for the Retry-After: refused as before, and this time its connection is closed.
    const impatient = await putTable(platform, hostile, 'late', TABLE);
    expect(impatient.statusCode).toBe(429);
    expect(impatient.headers.connection).toBe('close');
    // D164: sent again before the Retry-After, an upload is held unread until it passes, four at most per store;
    // past that bound the rest are answered at once, so they are the first answers of six sent together.
    const order: number[] = [];
    const together = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        putTable(platform, hostile, 'late', TABLE).then((answer) => {
          order.push(i);
          return answer;
        }),
      ),
    );
    expect(new Set(order.slice(0, 2))).toEqual(new Set([4, 5]));
    for (const answer of together) {
      expect([answer.statusCode, answer.headers.connection, answer.headers['retry-after']]).toEqual([429, 'close', '1']);
    }
    const large = await putTable(
      platform,
      hostile,
      'large',
      Buffer.concat([Buffer.from(TABLE), Buffer.alloc(2 * 1024 * 1024, 0x20)]),
    );
    expect(large.statusCode).toBe(429);
    expect(large.headers.connection).toBe('close');
    const listed = await platform.app.inject({
      url: `/admin/v1/tenants/${hostile}/shipping/freight-tables`,
      headers: { authorization: `Bearer ${platform.app.platform.config.adminToken}` },
    });
    expect((listed.json() as { results: Array<{ id: string }> }).results.map((t) => t.id).sort()).toEqual(['t0', 't1']);

    expect((await putTable(platform, other, 'own', TABLE)).statusCode).toBe(201);
    expect((await putTable(platform, null, 'market-a', TABLE)).statusCode).toBe(201);
    expect((await putTable(platform, null, 'market-b', TABLE)).statusCode).toBe(201);
    expect((await putTable(platform, null, 'market-c', TABLE)).statusCode).toBe(201);

    platform.clock.advance(1000 / RATE.storeUploadsPerSecond);
    expect((await putTable(platform, hostile, 'late', TABLE)).statusCode).toBe(201);
    expect((await putTable(platform, hostile, 'later', TABLE)).statusCode).toBe(429);
  });
});
