import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID_V7_PATTERN } from '../core/uuid-v7.js';
import type { Database } from '../storage/database.js';
import { testDatabaseTargets } from '../test-databases.js';
import { deliveryId, deliveryIdSql } from './delivery-id.js';

// The webhook-delivery tests check the ids of real fan-outs too, on both databases.

describe('delivery ids', () => {
  const event = '0192f0a4-5c2e-7a10-8000-000000000001';
  const createdAt = '2026-11-25T21:30:00.123Z';

  it('spec-notes W5: one event and subscription give one id, every time; another subscription or event another id', () => {
    const id = deliveryId(event, 'sub-a', createdAt);
    expect(deliveryId(event, 'sub-a', createdAt)).toBe(id);
    expect(deliveryId(event, 'sub-b', createdAt)).not.toBe(id);
    expect(deliveryId('0192f0a4-5c2e-7a10-8000-000000000002', 'sub-a', createdAt)).not.toBe(id);
  });

  it('is a UUID v7 carrying the event’s creation time, so deliveries of later events sort after earlier ones', () => {
    const id = deliveryId(event, 'sub-a', createdAt);
    expect(id).toMatch(UUID_V7_PATTERN);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.parse(createdAt));
    expect(deliveryId(event, 'sub-z', '2026-11-25T21:30:00.124Z') > deliveryId(event, 'sub-a', createdAt)).toBe(true);
  });
});

describe.each(testDatabaseTargets().filter((t) => t.dialect === 'postgres'))('delivery ids in SQL on $dialect', (target) => {
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(() => database.close());

  it('spec-notes W5: PostgreSQL’s fan-out computes the same id as SQLite’s, for any event, subscription and millisecond', async () => {
    const triples = Array.from({ length: 300 }, (_, i) => [
      randomUUID(),
      i % 3 === 0 ? `sub-${i}` : randomUUID(),
      new Date(Date.UTC(2020, 0, 1) + Math.floor(Math.random() * 2 ** 40)).toISOString(),
    ]);
    const { rows } = await sql<{ id: string }>`
      select ${sql.raw(deliveryIdSql('t.e', 't.s', 't.c'))} as id
      from unnest(${triples.map((t) => t[0])}::text[], ${triples.map((t) => t[1])}::text[], ${triples.map((t) => t[2])}::text[])
        with ordinality as t(e, s, c, n)
      order by t.n
    `.execute(database.db);
    expect(rows.map((r) => r.id)).toEqual(triples.map(([e, s, c]) => deliveryId(e as string, s as string, c as string)));
  });
});
