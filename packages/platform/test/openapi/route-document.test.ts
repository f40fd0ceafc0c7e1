import { SCOPE_NAMES } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUARD_SCOPE, listQuerySchema } from '../../src/http/openapi-document.js';
import type { CataloguedRoute } from '../../src/http/route-catalogue.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '../../src/testing.js';

type Schema = { type?: unknown; enum?: unknown[]; properties?: Record<string, Schema>; [key: string]: unknown };
type Parameter = { name: string; in: string; required?: boolean; schema: Schema };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { headers?: Record<string, { schema: Schema }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** A body schema as a generator reads it: through a single `allOf` (a schema with its example beside it) and `$ref`s. */
function resolved(doc: Document, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 5; depth++) {
    const allOf = current.allOf as Schema[] | undefined;
    const ref = current.$ref as string | undefined;
    if (allOf?.length === 1) current = allOf[0];
    else if (ref?.startsWith('#/components/schemas/'))
      current = doc.components.schemas[ref.slice('#/components/schemas/'.length)];
    else break;
  }
  return current;
}

const [target] = testDatabaseTargets();
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The OpenAPI path of a Fastify URL: `/a/:id` → `/a/{id}`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The access-token guard marks itself with its scope: such a route reads X-Tenant-Id and can refuse with 400/401/403, and 429 over its app's rate limit (spec-notes I20). */
function guardOf(route: CataloguedRoute): boolean {
  return [route.preHandler].flat().some((handler) => typeof handler === 'function' && GUARD_SCOPE in handler);
}

function propertiesOf(schema: unknown): Record<string, Schema> {
  return ((schema as Schema | undefined)?.properties as Record<string, Schema> | undefined) ?? {};
}

/** What a route really takes and answers, read from its registration (schema, list declaration, guard, method). */
function realInterface(route: CataloguedRoute, method: string) {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const config = (route.config ?? {}) as {
    listResource?: Parameters<typeof listQuerySchema>[0];
    rawBody?: { content: Record<string, unknown> };
  };
  const query: Record<string, Schema> = {
    ...propertiesOf(schema.querystring),
    ...(config.listResource ? propertiesOf(listQuerySchema(config.listResource)) : {}),
  };
  const guarded = guardOf(route);
  const headers = new Set(Object.keys(propertiesOf(schema.headers)).map((h) => h.toLowerCase()));
  if (guarded) headers.add('x-tenant-id');
  const path = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
  // A JSON body schema is read as JSON, or as each media type the route says it consumes (the OAuth endpoints also take forms).
  const media = schema.body
    ? ((schema.consumes as string[] | undefined) ?? ['application/json'])
    : Object.keys(config.rawBody?.content ?? {});
  const oauth = route.url.startsWith('/oauth/');
  const statuses = new Set(Object.keys((schema.response as Record<string, unknown> | undefined) ?? {}));
  if (guarded) for (const s of ['400', '401', '403', '429']) statuses.add(s);
  const security = (schema.security as Array<Record<string, unknown>> | undefined) ?? [];
  if (security.some((s) => 'adminToken' in s)) statuses.add('401');
  if (!oauth) {
    // The NUL guard (http/nul-guard.ts) runs before every route; the body parsers before every route that takes a body.
    statuses.add('422');
    if (schema.body || BODY_METHODS.has(method)) for (const s of ['400', '413', '415']) statuses.add(s);
  }
  return { query, headers, path, media, statuses, bodySchema: schema.body as Schema | undefined };
}

/**
 * The route-vs-document check: every route Fastify registered, walked from
 * the app's route catalogue (an onRoute hook), against the operation the
 * served document gives it. What is compared comes from the registration, not
 * from the document: the route's own querystring, headers, params and body
 * schemas, its list declaration (the parameters the list engine parses), the
 * access-token guard (X-Tenant-Id and its refusals), the body parsers, and
 * every status its response schema names.
 */
describe('the OpenAPI document against the registered routes', () => {
  let platform: TestPlatform;
  let doc: Document;
  beforeAll(async () => {
    platform = await createTestPlatform(target!);
    doc = (await platform.app.inject({ url: '/openapi.json' })).json() as Document;
  });
  afterAll(async () => {
    await platform?.close();
  });

  function documented(): Array<{ method: string; path: string; route: CataloguedRoute }> {
    const seen: Array<{ method: string; path: string; route: CataloguedRoute }> = [];
    for (const route of platform.app.routeCatalogue) {
      const schema = route.schema as { hide?: boolean } | undefined;
      if (schema?.hide) continue;
      for (const method of [route.method].flat()) {
        // Fastify's HEAD twin of a GET route is not an operation of its own.
        if (method === 'HEAD') continue;
        seen.push({ method, path: openapiPath(route.url), route });
      }
    }
    return seen;
  }

  it('OpenAPI 3.1: every route that is not hidden has its operation, and every operation is a route', () => {
    const routes = documented();
    expect(routes.length).toBeGreaterThan(60);
    const fromRoutes = routes.map(({ method, path }) => `${method} ${path}`).sort();
    const fromDocument = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(fromDocument).toEqual(fromRoutes);
  });

  it('OpenAPI 3.1: each operation declares exactly the path, query and header parameters its route takes, with their types', () => {
    const drift: string[] = [];
    for (const { method, path, route } of documented()) {
      const op = doc.paths[path]?.[method.toLowerCase()] as Operation;
      const real = realInterface(route, method);
      const params = op.parameters ?? [];
      const names = (where: string) =>
        params
          .filter((p) => p.in === where)
          // Header names are case-insensitive (Fastify keys them in lower case); path and query names are not.
          .map((p) => (where === 'header' ? p.name.toLowerCase() : p.name))
          .sort();
      const id = op.operationId;
      if (JSON.stringify(names('path')) !== JSON.stringify([...real.path].sort()))
        drift.push(`${id}: path ${names('path')} ≠ ${real.path}`);
      const query = Object.keys(real.query).sort();
      if (JSON.stringify(names('query')) !== JSON.stringify(query)) drift.push(`${id}: query ${names('query')} ≠ ${query}`);
      for (const p of params.filter((p) => p.in === 'query')) {
        const expected = real.query[p.name];
        if (expected?.type !== undefined && p.schema.type !== expected.type)
          drift.push(`${id}: ${p.name} is ${String(p.schema.type)}, the route takes ${String(expected.type)}`);
        if (expected?.enum && JSON.stringify(p.schema.enum) !== JSON.stringify(expected.enum))
          drift.push(`${id}: ${p.name} enum differs`);
      }
      const headers = [...real.headers].sort();
      if (JSON.stringify(names('header')) !== JSON.stringify(headers))
        drift.push(`${id}: headers ${names('header')} ≠ ${headers}`);
    }
    expect(drift).toEqual([]);
  });

  it('OpenAPI 3.1: each operation declares the body its route reads (media types and JSON fields), and none where it reads none', () => {
    const drift: string[] = [];
    for (const { method, path, route } of documented()) {
      const op = doc.paths[path]?.[method.toLowerCase()] as Operation;
      const real = realInterface(route, method);
      const media = Object.keys(op.requestBody?.content ?? {}).sort();
      if (JSON.stringify(media) !== JSON.stringify([...real.media].sort()))
        drift.push(`${op.operationId}: body ${media} ≠ ${real.media}`);
      const jsonSchema = resolved(doc, op.requestBody?.content['application/json']?.schema);
      if (real.bodySchema && jsonSchema) {
        // A named body (`Type.Ref`) is read from the shared schemas the route sees under its $id.
        const ref = (real.bodySchema.$ref as string | undefined)?.replace(/#$/, '');
        const routeBody = ref ? (route.sharedSchema(ref) as Schema | undefined) : real.bodySchema;
        if (ref && !routeBody) drift.push(`${op.operationId}: the route's body ${ref} is no schema it can see`);
        const fields = Object.keys(propertiesOf(routeBody)).sort();
        const declared = Object.keys(propertiesOf(jsonSchema)).sort();
        if (JSON.stringify(fields) !== JSON.stringify(declared))
          drift.push(`${op.operationId}: body fields ${declared} ≠ ${fields}`);
      }
    }
    expect(drift).toEqual([]);
  });

  it('OpenAPI 3.1: each operation declares every status its route can answer (response schema, guard, body parsers, NUL guard) and no other', () => {
    const drift: string[] = [];
    for (const { method, path, route } of documented()) {
      const op = doc.paths[path]?.[method.toLowerCase()] as Operation;
      const expected = [...realInterface(route, method).statuses].sort();
      const declared = Object.keys(op.responses).sort();
      if (JSON.stringify(declared) !== JSON.stringify(expected)) drift.push(`${op.operationId}: ${declared} ≠ route ${expected}`);
    }
    expect(drift).toEqual([]);
  });

  it('OpenAPI 3.1: every documented request media type is one the route accepts (no 415)', async () => {
    const refused: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const type of Object.keys(op.requestBody?.content ?? {})) {
          const res = await platform.app.inject({
            method: method.toUpperCase() as 'POST',
            url: path.replace(/\{[^}]+\}/g, 'nope'),
            headers: { 'content-type': type, authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
            payload: type === 'application/json' ? '{}' : 'x',
          });
          if (res.statusCode === 415) refused.push(`${op.operationId} ${type}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });

  it('OpenAPI 3.1: every documented JSON body example is a body its route takes (a record created from it is then changed with the patch example)', async () => {
    const seller = await platform.createSeller();
    const store = seller.tenantIds[0] as string;
    const created = new Map<string, string>();
    const examples = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
      .filter(({ op }) => op.requestBody?.content['application/json']?.example !== undefined)
      // Creations first: a change needs the record one of them made.
      .sort((a, b) => Number(a.method === 'patch') - Number(b.method === 'patch'));
    expect(examples.map(({ op }) => op.operationId)).toEqual(expect.arrayContaining(['adminCreateOrder', 'adminUpdateOrder']));
    const refused: string[] = [];
    for (const { path, method, op } of examples) {
      const collection = path.replace('{tenant_id}', store).replace(/\/\{id\}$/, '');
      const res = await platform.app.inject({
        method: method.toUpperCase() as 'POST',
        url: path.replace('{tenant_id}', store).replace('{id}', created.get(collection) ?? 'none'),
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: op.requestBody?.content['application/json']?.example as object,
      });
      if (res.statusCode >= 300) refused.push(`${op.operationId} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      else if (method === 'post') created.set(collection, (res.json() as { id: string }).id);
    }
    expect(refused).toEqual([]);
  });

  it('RFC 6585 §4 / RFC 9110 §10.2.3: createToken, revokeToken and introspectToken answer 429 with Retry-After once a client guesses too often, as documented', async () => {
    const paths = { createToken: '/oauth/token', revokeToken: '/oauth/revoke', introspectToken: '/oauth/introspect' };
    for (const [operationId, url] of Object.entries(paths)) {
      const op = doc.paths[url]?.post as Operation;
      expect(op.operationId).toBe(operationId);
      expect(op.responses['429']?.headers?.['Retry-After']?.schema).toMatchObject({ type: 'integer' });
      let answer: { statusCode: number; headers: Record<string, unknown>; json(): unknown } | undefined;
      for (let attempt = 0; attempt < 30; attempt++) {
        answer = await platform.app.inject({
          method: 'POST',
          url,
          payload: {
            grant_type: 'refresh_token',
            refresh_token: 'x',
            token: 'x',
            client_id: `guess-${operationId}`,
            client_secret: 'no',
          },
        });
        if (answer.statusCode === 429) break;
        expect(answer.statusCode).toBe(401);
      }
      expect(answer?.statusCode, operationId).toBe(429);
      expect(Number(answer?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer?.json()).toMatchObject({ error: 'temporarily_unavailable' });
    }
  });

  it('spec-notes I9: the seller webhook operations declare X-Tenant-Id, and a token for several stores needs it there', async () => {
    const seller = await platform.createSeller({ tenants: 2 });
    const token = await platform.mintAccessToken({ tenants: seller.tenantIds, scopes: SCOPE_NAMES });
    for (const [path, ops] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/seller/v1/webhooks/'))) {
      for (const op of Object.values(ops)) {
        expect(
          op.parameters?.map((p) => `${p.in}:${p.name}`),
          op.operationId,
        ).toContain('header:x-tenant-id');
      }
      if (path.includes('{') || !ops.get) continue;
      const without = await platform.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } });
      expect(without.statusCode, path).toBe(400);
      const withTenant = await platform.app.inject({
        url: path,
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': seller.tenantIds[1] as string },
      });
      expect(withTenant.statusCode, path).toBe(200);
    }
  });

  it('spec-notes Q8: the three freight-table PUTs declare a text/csv body, and the documented example imports as a table', async () => {
    const seller = await platform.createSeller();
    const puts = Object.values(doc.paths)
      .map((ops) => ops.put)
      .filter((op): op is Operation => op?.operationId?.endsWith('FreightTable') === true);
    expect(puts.map((op) => op.operationId).sort()).toEqual([
      'putDeliveryServiceFreightTable',
      'putSellerFreightTable',
      'putStoreFreightTable',
    ]);
    // text/csv first; the map in freight-routes.ts may add formats beside it.
    for (const op of puts) expect(Object.keys(op.requestBody?.content ?? {})[0]).toBe('text/csv');
    const example = puts[0]?.requestBody?.content['text/csv']?.example;
    if (typeof example !== 'string') throw new Error('the freight-table PUT documents no text/csv example');
    const res = await platform.app.inject({
      method: 'PUT',
      url: `/admin/v1/tenants/${seller.tenantIds[0]}/shipping/freight-tables/standard?name=Standard`,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      payload: example,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ id: 'standard', row_count: 1 });
  });
});
