import { describe, expect, it } from 'vitest';
import { schemaCompilations } from '../../src/http/schema-compilers.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform } from '../../src/testing.js';

// Building an app compiles its routes' schemas once per process, not once per app: a test file builds
// several (one per database, restarts, strict mode), a cluster worker one.

describe('the work of building an app', () => {
  it('a second app in the same process compiles no validator or answer serializer again, and validates and answers as the first', async () => {
    const target = testDatabaseTargets()[0];
    if (!target) throw new Error('no test database');
    const first = await createTestPlatform(target);
    const compiledByFirst = schemaCompilations();
    expect(compiledByFirst.validators).toBeGreaterThan(0);
    expect(compiledByFirst.serializers).toBeGreaterThan(0);
    const second = await createTestPlatform(target);
    try {
      expect(schemaCompilations()).toEqual(compiledByFirst);
      for (const { app } of [first, second]) {
        // A body the schema refuses, and an answer the serializer writes, the same from both apps.
        const refused = await app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 7 } });
        expect(refused.statusCode).toBe(400);
        const health = await app.inject({ method: 'GET', url: '/health' });
        expect(health.statusCode).toBe(200);
        expect(health.json()).toMatchObject({ status: 'ok' });
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});
