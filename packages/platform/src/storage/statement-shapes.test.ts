import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../test-databases.js';
import type { Database } from './database.js';
import type { Schema } from './schema.js';
import { CompiledOnce, multiRowInsert, StatementShapes } from './statement-shapes.js';

/** A multi-row INSERT of outbox events' keys and bodies, as the shapes in webhooks/ are written. */
function eventInsert(compiled: number[]) {
  return new StatementShapes<Schema>(
    'test insert',
    (db: Kysely<Schema>, rows) => {
      compiled.push(rows);
      const template = {
        id: 0,
        tenant_id: 0,
        topic: sql.lit('order'),
        status: sql.lit('CREATION'),
        record_id: sql.lit('r1'),
        resource: sql.lit('/v1/orders/r1'),
        body: 0,
        created_at: 0,
      };
      return db
        .insertInto('outbox_events')
        .values(Array.from({ length: rows }, () => template) as never)
        .returning('id')
        .compile();
    },
    4,
  );
}

describe.each(testDatabaseTargets())('statement shapes ($dialect)', ({ dialect, open }) => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('binds each batch to a text compiled once per row count, and the rows land as bound', async () => {
    database = await open();
    const compiled: number[] = [];
    const shapes = eventInsert(compiled);
    const row = (n: number) => [`e${n}`, 't1', `{"n":${n}}`, `2026-01-15T12:00:0${n}.000Z`];
    for (const batch of [
      [1, 2],
      [3, 4],
      [5, 6, 7],
    ]) {
      const query = shapes.query(database.db, dialect, batch.length, batch.flatMap(row));
      await database.db.executeQuery(query);
    }
    expect(compiled).toEqual([2, 3]);
    const events = await database.db
      .selectFrom('outbox_events')
      .select(['id', 'topic', 'body', 'created_at'])
      .orderBy('id')
      .execute();
    expect(events).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => ({
        id: `e${n}`,
        topic: 'order',
        body: `{"n":${n}}`,
        created_at: `2026-01-15T12:00:0${n}.000Z`,
      })),
    );
  });

  it('refuses a batch bound with a number of values its shape does not take, and runs nothing', async () => {
    database = await open();
    const shapes = eventInsert([]);
    expect(() => shapes.query(database?.db as Kysely<Schema>, dialect, 2, ['e1', 't1', '{}'])).toThrow(
      'test insert: 3 values bound for 2 rows, expected 8',
    );
    expect(await database.db.selectFrom('outbox_events').select('id').execute()).toEqual([]);
    const misdeclared = new StatementShapes<Schema>(
      'misdeclared',
      (db, rows) =>
        db
          .selectFrom('outbox_events')
          .select('id')
          .where(
            'id',
            'in',
            Array.from({ length: rows }, () => ''),
          )
          .compile(),
      2,
    );
    expect(() => misdeclared.query(database?.db as Kysely<Schema>, dialect, 1, ['a', 'b'])).toThrow(
      'misdeclared: its 1-row statement takes 1 values, expected 2',
    );
  });

  it('multiRowInsert: bound columns in their order, constants in every row, and what finishes the statement', async () => {
    database = await open();
    const insert = multiRowInsert<Schema>('outbox insert', 'outbox_events', ['id', 'body', 'tenant_id', 'created_at'], {
      constants: { topic: sql.lit('order'), status: sql.lit('CREATION'), record_id: sql.lit('r1'), resource: sql.lit('/r1') },
      finish: (statement) => statement.returning(['id', 'tenant_id']),
    });
    const values = ['e1', '{"n":1}', 't1', '2026-01-15T12:00:01.000Z', 'e2', '{"n":2}', 't2', '2026-01-15T12:00:02.000Z'];
    const { rows } = await database.db.executeQuery(insert.query(database.db, dialect, 2, values));
    expect(rows).toEqual([
      { id: 'e1', tenant_id: 't1' },
      { id: 'e2', tenant_id: 't2' },
    ]);
    const stored = await database.db
      .selectFrom('outbox_events')
      .select(['id', 'body', 'tenant_id', 'created_at', 'topic', 'status', 'record_id', 'resource'])
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      {
        id: 'e1',
        body: '{"n":1}',
        tenant_id: 't1',
        created_at: '2026-01-15T12:00:01.000Z',
        topic: 'order',
        status: 'CREATION',
        record_id: 'r1',
        resource: '/r1',
      },
      {
        id: 'e2',
        body: '{"n":2}',
        tenant_id: 't2',
        created_at: '2026-01-15T12:00:02.000Z',
        topic: 'order',
        status: 'CREATION',
        record_id: 'r1',
        resource: '/r1',
      },
    ]);
  });

  it('CompiledOnce: built and compiled on its first run, then each run binds its values by name to the same text', async () => {
    database = await open();
    let builds = 0;
    const insert = new CompiledOnce<Schema, { id: string; body: string; at: string }, { id: string; body: string }>(
      'event insert',
      (db, slot) => {
        builds += 1;
        return db
          .insertInto('outbox_events')
          .values({
            id: slot('id'),
            tenant_id: sql.lit('t1'),
            topic: sql.lit('order'),
            status: sql.lit('CREATION'),
            record_id: sql.lit('r1'),
            resource: sql.lit('/v1/orders/r1'),
            body: slot('body'),
            // One slot named twice binds its value twice.
            created_at: sql<string>`coalesce(${slot('at')}, ${slot('at')})`,
          })
          .returning(['id', 'body']);
      },
    );
    const texts = new Set<string>();
    for (const n of [1, 2, 3]) {
      const query = insert.query(database.db, dialect, { body: `{"n":${n}}`, at: `2026-01-15T12:00:0${n}.000Z`, id: `e${n}` });
      texts.add(query.sql);
      expect((await database.db.executeQuery(query)).rows).toEqual([{ id: `e${n}`, body: `{"n":${n}}` }]);
    }
    expect(builds).toBe(1);
    expect(texts.size).toBe(1);
    const stored = await database.db.selectFrom('outbox_events').select(['id', 'created_at']).orderBy('id').execute();
    expect(stored).toEqual([1, 2, 3].map((n) => ({ id: `e${n}`, created_at: `2026-01-15T12:00:0${n}.000Z` })));
  });

  it("CompiledOnce: a statement that binds a value of its own is refused before it runs, so no run reuses the first call's value", async () => {
    database = await open();
    const forgot = new CompiledOnce<Schema, { id: string }, never>('forgetful', (db, slot) =>
      db.updateTable('outbox_events').set({ body: '{}' }).where('id', '=', slot('id')),
    );
    expect(() => forgot.query(database?.db as Kysely<Schema>, dialect, { id: 'e1' })).toThrow(
      'forgetful: the statement binds a value of its own',
    );
  });
});
