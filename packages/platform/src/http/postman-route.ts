import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';

/** Generated from the OpenAPI document (test/openapi/postman-generator.ts; postman-collection.test.ts keeps it current). */
const COLLECTION_FILE = new URL('../../postman/feira.postman_collection.json', import.meta.url);

/**
 * `GET /postman-collection.json`: the Postman collection of the API, runnable
 * from top to bottom (newman included: docs/openapi.md), its `baseUrl` and
 * `authUrl` variables set to this deployment's addresses. Only `adminToken`
 * is left to set; the collection signs a seller in through the login pages
 * to get its `accessToken`.
 */
export async function postmanRoute(app: FastifyInstance): Promise<void> {
  const { publicUrl, authUrl } = app.platform.config;
  let cached: string | undefined;
  app.get('/postman-collection.json', { schema: { hide: true } }, async (_request, reply) => {
    if (cached === undefined) {
      const collection = JSON.parse(await readFile(COLLECTION_FILE, 'utf8')) as {
        variable?: Array<{ key: string; value: string }>;
      };
      for (const variable of collection.variable ?? []) {
        if (variable.key === 'baseUrl') variable.value = publicUrl;
        if (variable.key === 'authUrl') variable.value = authUrl;
      }
      cached = JSON.stringify(collection);
    }
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-disposition', 'attachment; filename="feira.postman_collection.json"')
      .send(cached);
  });
}
