import { TOPIC_NAMES, TOPICS } from '@feira/contract';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../core/random.js';
import { CATALOGUES } from '../i18n/i18n.js';
import { testDatabaseTargets } from '../test-databases.js';
import { createTestPlatform } from '../testing.js';
import { RECORD_KINDS, recordKindOfTopic } from './record-kinds.js';

// The registry every records consumer reads (routes, lists, feira trigger, the
// seeder): these check the declarations agree with the contract and the tables.

describe('record kinds', () => {
  it('spec-notes W7: every webhook topic is announced by exactly one kind, which reads with the topic scope', () => {
    expect(RECORD_KINDS.map((kind) => kind.topic).sort()).toEqual([...TOPIC_NAMES].sort());
    for (const topic of TOPIC_NAMES) {
      const kind = recordKindOfTopic(topic);
      expect(kind.topic).toBe(topic);
      expect(kind.scope).toBe(TOPICS[topic].scope);
    }
  });

  it('tables, read paths and list names are distinct; each list is named after its table', () => {
    const tables = RECORD_KINDS.map((kind) => kind.table);
    const paths = RECORD_KINDS.map((kind) => kind.readPath);
    expect(new Set(tables).size).toBe(RECORD_KINDS.length);
    expect(new Set(paths).size).toBe(RECORD_KINDS.length);
    for (const kind of RECORD_KINDS) expect(kind.list.name).toBe(kind.table);
  });

  it('each kind names its console label in both languages, and a demo count that fills more than one page', () => {
    for (const kind of RECORD_KINDS) {
      // A catalogue key, or the names the kind carries (D91).
      const key = kind.labelKey;
      const names = typeof key === 'string' ? { en: CATALOGUES.en[key], 'pt-BR': CATALOGUES['pt-BR'][key] } : key;
      expect(names.en, kind.table).toBeTruthy();
      expect(names['pt-BR'], kind.table).toBeTruthy();
      expect(names['pt-BR']).not.toBe(names.en);
      expect(kind.demoCount, kind.table).toBeGreaterThan(20);
    }
  });

  it('the OpenAPI document opens with one group per kind, in the registry order, described by the kind', async () => {
    const platform = await createTestPlatform();
    try {
      const doc = (await platform.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        tags: Array<{ name: string; description: string }>;
      };
      expect(doc.tags.slice(0, RECORD_KINDS.length)).toEqual(
        RECORD_KINDS.map((kind) => ({ name: kind.table, description: kind.openApiTag })),
      );
    } finally {
      await platform.close();
    }
  });

  it.each(RECORD_KINDS.map((kind) => [kind.table, kind] as const))(
    'feira trigger: the %s bodies are valid create and patch bodies, and a created record presents as the contract says',
    (_table, kind) => {
      const input = kind.trigger.create('TAG1');
      expect(Value.Errors(kind.schemas.input, input).First()).toBeUndefined();
      expect(Value.Errors(kind.schemas.patch, kind.trigger.update).First()).toBeUndefined();
      const keys = {
        id: cryptoRandom.uuid(),
        tenant_id: 't',
        created_at: new Date(0).toISOString(),
        updated_at: new Date(0).toISOString(),
      };
      const record = kind.present({ ...kind.create(input as never, cryptoRandom), ...keys } as never);
      expect(Value.Errors(kind.schemas.record, record).First()).toBeUndefined();
    },
  );

  describe.each(testDatabaseTargets())('on $dialect', (target) => {
    it('each seed generator writes every column of its table but the four the seeder writes', async () => {
      const database = await target.open();
      try {
        for (const kind of RECORD_KINDS) {
          const columns = (await database.db.introspection.getTables())
            .find((table) => table.name === kind.table)
            ?.columns.map((column) => column.name);
          expect(columns, kind.table).toBeDefined();
          expect([...kind.seed.columns, 'id', 'tenant_id', 'created_at', 'updated_at'].sort()).toEqual(
            [...(columns ?? [])].sort(),
          );
        }
      } finally {
        await database.close();
      }
    });
  });
});
