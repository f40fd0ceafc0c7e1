// The "Add a kind of record" recipe (docs/architecture.md), proved with a
// throw-away kind: short notes, declared here as the recipe's kind module
// declares one (row type merged into RecordTables, table declared as data,
// labels carried by the kind) and registered through the same registry the
// platform's own kinds go through (createPlatform's `recordKinds`, D89–D92).
// The seller API, the admin API, the OpenAPI document, the console's records
// page, webhook signup and delivery, and the seeder take it; an app without it
// knows nothing of it. On every database. That the recipe's files are the
// ones a kind Feira ships needs is proved by `npm run check:recipes`.
import { type Static, Type } from '@sinclair/typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineListResource } from '../../src/lists/list-resource.js';
import { COMMON_LIST_FIELDS, type RecordKind, type RowOf } from '../../src/records/record-kind.js';
import { createRecordKindTables } from '../../src/records/record-kind-tables.js';
import { RECORD_KINDS, recordKindRegistry } from '../../src/records/record-kinds.js';
import { seedRecords } from '../../src/records/seed-records.js';
import { dialectAdapter } from '../../src/storage/dialect-adapter.js';
import { withMigrationLock } from '../../src/storage/migrate.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { sellerSession } from '../console/console-session.js';
import { ADMIN } from '../lists/list-fixtures.js';
import { type LoopbackReceiver, startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf } from '../webhooks/webhook-kit.js';

// Recipe step: the row type, merged into the records capability's tables (as Fastify's decorators are declared).
declare module '../../src/records/record-tables.js' {
  interface RecordTables {
    recipe_notes: {
      id: string;
      tenant_id: string;
      body: string;
      priority: number;
      created_at: string;
      updated_at: string;
    };
  }
}

// Recipe step: the contract's schemas (a real kind puts these in packages/contract/src/records.ts).
const RecipeNote = Type.Object({
  id: Type.String(),
  body: Type.String(),
  priority: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
type RecipeNote = Static<typeof RecipeNote>;
const RecipeNoteInput = Type.Object(
  { body: Type.String({ minLength: 1, maxLength: 500 }), priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 9 })) },
  { additionalProperties: false },
);
type RecipeNoteInput = Static<typeof RecipeNoteInput>;
const RecipeNotePatch = Type.Partial(RecipeNoteInput, { additionalProperties: false, minProperties: 1 });
type RecipeNotePatch = Static<typeof RecipeNotePatch>;

type RecipeNoteRow = RowOf<'recipe_notes'>;

function presentNote(row: RecipeNoteRow): RecipeNote {
  return { id: row.id, body: row.body, priority: row.priority, created_at: row.created_at, updated_at: row.updated_at };
}

// Recipe step: the kind module (records/kinds/<kind>.ts).
const noteKind: RecordKind<'recipe_notes', RecipeNote, RecipeNoteInput, RecipeNotePatch> = {
  table: 'recipe_notes',
  // A topic of its own (a real kind adds it to the contract's TOPICS); the scope of an existing kind.
  topic: 'recipe_note',
  scope: 'open:ticket:read',
  readPath: '/seller/v1/recipe-notes',
  label: 'Recipe note',
  labelKey: { en: 'Recipe notes', 'pt-BR': 'Notas da receita' },
  fieldLabels: { body: { en: 'Text', 'pt-BR': 'Texto' }, priority: { en: 'Priority', 'pt-BR': 'Prioridade' } },
  openApiTag: 'Recipe notes (scope `open:ticket:read`)',
  demoCount: 30,
  schemas: { record: RecipeNote, input: RecipeNoteInput, patch: RecipeNotePatch },
  list: defineListResource<RecipeNoteRow, RecipeNote>({
    name: 'recipe_notes',
    fields: {
      ...COMMON_LIST_FIELDS,
      body: { column: 'body', type: 'string' },
      priority: { column: 'priority', type: 'integer' },
    },
    sorts: ['created_at', 'updated_at', 'priority'],
    defaultSort: [{ field: 'created_at', direction: 'desc' }],
    present: presentNote,
  }),
  present: presentNote,
  create: (input) => ({ body: input.body, priority: input.priority ?? 0 }),
  patch: (_current, patch) => ({
    ...(patch.body !== undefined && { body: patch.body }),
    ...(patch.priority !== undefined && { priority: patch.priority }),
  }),
  seed: {
    columns: ['body', 'priority'],
    fill(v, at, i, { next }) {
      v[at] = `Seeded note ${i}`;
      v[at + 1] = Math.floor(next() * 10);
    },
  },
  trigger: { create: (tag) => ({ body: `Triggered (${tag})` }), update: { priority: 9 } },
  storage: {
    columns: { body: { type: 'text' }, priority: { type: 'integer' } },
    listIndexes: [[], ['created_at'], ['updated_at'], ['priority']],
  },
};

// Recipe step: registration (a real kind adds itself to RECORD_KINDS).
const withNotes = recordKindRegistry([...RECORD_KINDS, noteKind]);

type OpenApi = {
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, { tags?: string[]; operationId?: string }>>;
};

describe.each(testDatabaseTargets())('a record kind added to the registry on $dialect', (target) => {
  let platform: TestPlatform;
  let plain: TestPlatform;
  const receivers: LoopbackReceiver[] = [];
  beforeAll(async () => {
    platform = await createTestPlatform(target, { recordKinds: withNotes });
    plain = await createTestPlatform(target);
  });
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });
  afterAll(async () => {
    await platform?.close();
    await plain?.close();
  });

  async function createNote(tenantId: string, body: Record<string, unknown>) {
    return platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenantId}/recipe_notes`,
      headers: ADMIN,
      payload: body,
    });
  }

  async function sellerToken(tenantId: string, scopes: Parameters<TestPlatform['mintAccessToken']>[0]['scopes']) {
    return platform.mintAccessToken({ tenants: [tenantId], scopes, clientId: `client-${platform.app.platform.random.uuid()}` });
  }

  it('spec-notes W6: the admin API creates, changes and deletes the new kind, refusing a body its schema refuses', async () => {
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const created = await createNote(tenantId, { body: 'Call the carrier', priority: 3 });
    expect(created.statusCode).toBe(201);
    const note = created.json() as RecipeNote;
    expect(note).toMatchObject({ body: 'Call the carrier', priority: 3 });
    const patched = await platform.app.inject({
      method: 'PATCH',
      url: `/admin/v1/tenants/${tenantId}/recipe_notes/${note.id}`,
      headers: ADMIN,
      payload: { priority: 7 },
    });
    expect(patched.json()).toMatchObject({ id: note.id, body: 'Call the carrier', priority: 7 });
    const refused = await createNote(tenantId, { body: '', priority: 12 });
    expect(refused.statusCode).toBe(422);
    expect(
      refused
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['body', 'priority']);
    const deleted = await platform.app.inject({
      method: 'DELETE',
      url: `/admin/v1/tenants/${tenantId}/recipe_notes/${note.id}`,
      headers: ADMIN,
    });
    expect(deleted.statusCode).toBe(204);
    const events = await platform.database.db
      .selectFrom('outbox_events')
      .select(['topic', 'status', 'resource'])
      .where('record_id', '=', note.id)
      .orderBy('seq')
      .execute();
    expect(events).toEqual(
      ['CREATION', 'UPDATE', 'DELETION'].map((status) => ({
        topic: 'recipe_note',
        status,
        resource: `/seller/v1/recipe-notes/${note.id}`,
      })),
    );
  });

  it('spec-notes L1–L9, I11: the seller API lists the new kind with the list conventions, reads one, and keeps tenants apart', async () => {
    const { tenantIds } = await platform.createSeller({ tenants: 2 });
    const [tenantId, otherTenant] = tenantIds as [string, string];
    for (const priority of [5, 1, 8, 3]) {
      expect((await createNote(tenantId, { body: `Note ${priority}`, priority })).statusCode).toBe(201);
    }
    await createNote(otherTenant, { body: 'Elsewhere', priority: 4 });
    const token = await sellerToken(tenantId, ['open:ticket:read']);
    const auth = { authorization: `Bearer ${token}` };
    const first = await platform.app.inject({
      method: 'GET',
      url: '/seller/v1/recipe-notes?_sort=priority:asc&priority__gte=3&_limit=2&_paginate=cursor',
      headers: auth,
    });
    expect(first.statusCode).toBe(200);
    const page = first.json() as { results: RecipeNote[]; meta: { links: { next: string | null } } };
    expect(page.results.map((note) => note.priority)).toEqual([3, 5]);
    const nextToken = new URL(page.meta.links.next as string, 'http://x').searchParams.get('_next_token');
    const second = await platform.app.inject({
      method: 'GET',
      url: `/seller/v1/recipe-notes?_sort=priority:asc&priority__gte=3&_limit=2&_paginate=cursor&_next_token=${nextToken}`,
      headers: auth,
    });
    expect((second.json() as { results: RecipeNote[] }).results.map((note) => note.priority)).toEqual([8]);
    const one = page.results[0] as RecipeNote;
    const read = await platform.app.inject({ method: 'GET', url: `/seller/v1/recipe-notes/${one.id}`, headers: auth });
    expect(read.json()).toEqual(one);

    const refusedSort = await platform.app.inject({ method: 'GET', url: '/seller/v1/recipe-notes?_sort=body', headers: auth });
    expect(refusedSort.statusCode).toBe(422);
    const otherToken = await sellerToken(otherTenant, ['open:ticket:read']);
    const elsewhere = await platform.app.inject({
      method: 'GET',
      url: `/seller/v1/recipe-notes/${one.id}`,
      headers: { authorization: `Bearer ${otherToken}` },
    });
    expect(elsewhere.statusCode).toBe(404);
    const withoutScope = await sellerToken(tenantId, ['open:portfolio:read']);
    const forbidden = await platform.app.inject({
      method: 'GET',
      url: '/seller/v1/recipe-notes',
      headers: { authorization: `Bearer ${withoutScope}` },
    });
    expect(forbidden.statusCode).toBe(403);

    const unknown = await plain.app.inject({ method: 'GET', url: '/seller/v1/recipe-notes', headers: auth });
    expect(unknown.statusCode).toBe(404);
  });

  it('OpenAPI 3.1: the document has the new kind’s paths under its own tag, after the platform’s kinds; an app without it does not', async () => {
    const doc = (await platform.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApi;
    expect(doc.tags.slice(0, RECORD_KINDS.length + 1)).toEqual([
      ...RECORD_KINDS.map((kind) => ({ name: kind.table, description: kind.openApiTag })),
      { name: 'recipe_notes', description: 'Recipe notes (scope `open:ticket:read`)' },
    ]);
    expect(doc.paths['/seller/v1/recipe-notes']?.get?.operationId).toBe('listRecipe_notes');
    expect(doc.paths['/seller/v1/recipe-notes/{id}']?.get).toMatchObject({
      operationId: 'getRecipeNote',
      tags: ['recipe_notes'],
    });
    expect(Object.keys(doc.paths['/admin/v1/tenants/{tenant_id}/recipe_notes'] ?? {}).sort()).toEqual(['get', 'post']);

    const plainDoc = (await plain.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApi;
    expect(JSON.stringify(plainDoc)).not.toContain('recipe');
  });

  it('the console’s records page shows the new kind’s tab and table, named in the page’s language', async () => {
    const seller = await platform.createSeller();
    const tenantId = seller.tenantIds[0] as string;
    await createNote(tenantId, { body: 'Visible in the console', priority: 2 });
    const session = await sellerSession(platform.app, seller);
    const english = await session.get(`/console/stores/${tenantId}/records/recipe_notes`);
    expect(english.statusCode).toBe(200);
    expect(english.body).toContain(
      `<a href="/console/stores/${tenantId}/records/recipe_notes" aria-current="page">Recipe notes</a>`,
    );
    expect(english.body).toContain('Visible in the console');
    expect(english.body).toMatch(/<th[^>]*>Priority<\/th>/);
    const orders = await session.get(`/console/stores/${tenantId}/records/orders`);
    expect(orders.body).toContain(`<a href="/console/stores/${tenantId}/records/recipe_notes">Recipe notes</a>`);

    const portuguese = await sellerSession(platform.app, seller, { 'accept-language': 'pt-BR' });
    const page = await portuguese.get(`/console/stores/${tenantId}/records/recipe_notes`);
    expect(page.body).toContain('>Notas da receita</a>');
    expect(page.body).toMatch(/<th[^>]*>Prioridade<\/th>/);

    const plainSeller = await plain.createSeller();
    const plainSession = await sellerSession(plain.app, plainSeller);
    const absent = await plainSession.get(`/console/stores/${plainSeller.tenantIds[0]}/records/recipe_notes`);
    expect(absent.statusCode).toBe(404);
    expect((await plainSession.get(`/console/stores/${plainSeller.tenantIds[0]}/records/orders`)).body).not.toContain(
      'recipe_notes',
    );
  });

  it('spec-notes W1, W7: a subscriber of the new kind’s topic gets its events; an app without the kind refuses the topic', async () => {
    const hooks = await startReceiver({ tls: false });
    receivers.push(hooks);
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const token = await sellerToken(tenantId, ['open:webhook:write', 'open:ticket:read']);
    const signup = await platform.app.inject({
      method: 'PUT',
      url: '/v0/onboarding/signup',
      headers: { authorization: `Bearer ${token}` },
      payload: { webhook: hooks.url, topics: ['recipe_note'] },
    });
    expect(signup.statusCode).toBe(200);
    expect(signup.json().subscriptions.map((s: { topic: string }) => s.topic)).toEqual(['recipe_note']);
    // With no topics named, the token's scope brings the new kind's topic beside the tickets'.
    const all = await platform.app.inject({
      method: 'PUT',
      url: '/v0/onboarding/signup',
      headers: { authorization: `Bearer ${token}` },
      payload: { webhook: hooks.url },
    });
    expect(
      all
        .json()
        .subscriptions.map((s: { topic: string }) => s.topic)
        .sort(),
    ).toEqual(['recipe_note', 'sac_ticket']);

    const note = (await createNote(tenantId, { body: 'Announced' })).json() as RecipeNote;
    await dispatcherOf(platform).drain();
    const [request] = await hooks.waitFor(1);
    expect(JSON.parse(request?.raw.toString('utf8') ?? '')).toEqual({
      data: { status: 'CREATION', params: { id: note.id }, resource: `/seller/v1/recipe-notes/${note.id}` },
      tenant_id: tenantId,
      topic: 'recipe_note',
    });

    const plainTenant = (await plain.createSeller()).tenantIds[0] as string;
    const plainToken = await plain.mintAccessToken({
      tenants: [plainTenant],
      scopes: ['open:webhook:write', 'open:ticket:read'],
      clientId: 'client-plain',
    });
    const refused = await plain.app.inject({
      method: 'PUT',
      url: '/v0/onboarding/signup',
      headers: { authorization: `Bearer ${plainToken}` },
      payload: { webhook: hooks.url, topics: ['recipe_note'] },
    });
    expect(refused.statusCode).toBe(422);
  });

  it('the seeder fills the new kind’s table, created from its declaration (no migration file), with the registry in use', async () => {
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const result = await seedRecords(
      platform.database,
      tenantId,
      { recipe_notes: 25, orders: 2 },
      { clock: platform.clock, random: platform.app.platform.random, kinds: withNotes },
    );
    expect(result.counts).toMatchObject({ recipe_notes: 25, orders: 2, products: 0 });
    const token = await sellerToken(tenantId, ['open:ticket:read']);
    const listed = await platform.app.inject({
      method: 'GET',
      url: '/seller/v1/recipe-notes?_limit=100',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.json().results).toHaveLength(25);
    const table = (await platform.database.db.introspection.getTables()).find((found) => found.name === 'recipe_notes');
    expect(table?.columns.map((column) => column.name)).toEqual([
      'id',
      'tenant_id',
      'body',
      'priority',
      'created_at',
      'updated_at',
    ]);
    // A second start over the same database finds the table and keeps its rows.
    await withMigrationLock(platform.database, (conn) => createRecordKindTables(conn, platform.database.dialect, withNotes));
    const again = await platform.database.db.selectFrom('recipe_notes').select('id').where('tenant_id', '=', tenantId).execute();
    expect(again).toHaveLength(25);
    // One (tenant_id, …, id) index per declared list index, as the list engine's keyset pages need.
    const indexes = await dialectAdapter(platform.database).secondaryIndexes(platform.database.db, 'recipe_notes');
    expect(indexes.map((index) => index.name).sort()).toEqual([
      'recipe_notes_tenant_created_at_id_idx',
      'recipe_notes_tenant_id_idx',
      'recipe_notes_tenant_priority_id_idx',
      'recipe_notes_tenant_updated_at_id_idx',
    ]);
  });
});

describe('the record kind recipe', () => {
  it('a table, topic or read path registered twice is refused when the registry is built', () => {
    expect(() => recordKindRegistry([...RECORD_KINDS, noteKind, noteKind])).toThrow(
      'record kind recipe_notes is registered twice',
    );
    expect(() => recordKindRegistry([...RECORD_KINDS, { ...noteKind, topic: 'order' }])).toThrow(
      'topic order of record kind recipe_notes belongs to orders already',
    );
    expect(() => recordKindRegistry([...RECORD_KINDS, { ...noteKind, readPath: '/v1/orders' }])).toThrow(
      'read path /v1/orders of record kind recipe_notes is taken',
    );
  });
});
