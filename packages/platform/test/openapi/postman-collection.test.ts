import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../src/testing.js';
import { generateCollection, type Item, type OpenApiDocument } from './postman-generator.js';

const COLLECTION = fileURLToPath(new URL('../../postman/feira.postman_collection.json', import.meta.url));
const [target] = testDatabaseTargets();

describe('Postman collection', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target!, {
      config: testConfig({ publicUrl: 'http://127.0.0.1:8080', authUrl: 'http://127.0.0.1:8080' }),
    });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('OpenAPI 3.1: the collection in the repository is the one generated from the served document (FEIRA_WRITE_POSTMAN=1 rewrites it); the platform serves it with its own addresses', async () => {
    const doc = (await platform.app.inject({ url: '/openapi.json' })).json() as OpenApiDocument;
    const fresh = `${JSON.stringify(await generateCollection(doc), null, 2)}\n`;
    if (process.env.FEIRA_WRITE_POSTMAN === '1') await writeFile(COLLECTION, fresh);
    expect(await readFile(COLLECTION, 'utf8')).toBe(fresh);

    const parsed = JSON.parse(fresh) as { item: Item[] };
    const requests = parsed.item.flatMap((folder) => folder.item ?? []);
    // Every operation of the document, plus the sign-in pages, each with its one status test.
    const operations = Object.values(doc.paths).flatMap((ops) => Object.keys(ops)).length;
    expect(requests.length).toBe(operations + 4);
    for (const request of requests) {
      const tests = (request.event ?? []).filter((e) => e.listen === 'test').flatMap((e) => e.script.exec);
      expect(
        tests.filter((line) => line.startsWith('pm.test(') && line.includes('as documented')),
        request.name,
      ).toHaveLength(1);
    }
    const raw = JSON.stringify(parsed);
    expect(raw).not.toContain('<string>');
    expect(raw).not.toContain('"oauth2"');

    const served = await platform.app.inject({ url: '/postman-collection.json' });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-disposition']).toContain('feira.postman_collection.json');
    expect(served.json().item).toEqual(parsed.item);
  }, 60_000);
});
