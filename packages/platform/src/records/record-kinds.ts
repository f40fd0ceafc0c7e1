import type { Scope, Topic } from '@feira/contract';
import { orderKind } from './kinds/orders.js';
import { productKind } from './kinds/products.js';
import { ticketKind } from './kinds/tickets.js';
import { transactionKind } from './kinds/transactions.js';
import type { RecordKind, RecordTable } from './record-kind.js';

/**
 * Every kind of business record, in seeding order (a kind's seeded rows may
 * refer to rows of the kinds before it: tickets and transactions to orders).
 * The platform's registry (`BUILT_IN_RECORD_KINDS`) is built from this list;
 * a new kind is one module in kinds/ added here (docs/architecture.md).
 */
export const RECORD_KINDS = [productKind, orderKind, ticketKind, transactionKind] as const;

export type AnyRecordKind = (typeof RECORD_KINDS)[number];

/** A kind as the registry holds it: any table, its record and bodies unknown to the code that runs every kind alike. */
export type RegisteredRecordKind = RecordKind<RecordTable, unknown, unknown, unknown>;

/**
 * The kinds of record a platform serves (D89): routes, lists, OpenAPI tags,
 * the console's records pages, the seeder, webhook signup and the topic → scope
 * map read the registry in use, which `createPlatform({ recordKinds })` takes
 * (default `BUILT_IN_RECORD_KINDS`), as it takes `quoteMethods`.
 */
export interface RecordKindRegistry {
  /** In seeding order. */
  readonly kinds: readonly RegisteredRecordKind[];
  /** The kind stored in `table`, if one is registered. */
  find(table: string): RegisteredRecordKind | undefined;
  /** The kind whose changes a topic announces, if one is registered. */
  findByTopic(topic: string): RegisteredRecordKind | undefined;
  /** Every registered topic with the scope that reads its records, in registry order. */
  readonly topics: ReadonlyMap<string, Scope>;
}

/**
 * Builds a registry, refusing a table, topic or read path registered twice
 * (each names one kind in routes, webhooks and the console).
 */
export function recordKindRegistry(kinds: readonly RegisteredRecordKind[]): RecordKindRegistry {
  const byTable = new Map<string, RegisteredRecordKind>();
  const byTopic = new Map<string, RegisteredRecordKind>();
  const paths = new Set<string>();
  for (const kind of kinds) {
    if (byTable.has(kind.table)) throw new Error(`record kind ${kind.table} is registered twice`);
    if (byTopic.has(kind.topic))
      throw new Error(`topic ${kind.topic} of record kind ${kind.table} belongs to ${byTopic.get(kind.topic)?.table} already`);
    if (paths.has(kind.readPath)) throw new Error(`read path ${kind.readPath} of record kind ${kind.table} is taken`);
    for (const { field, match } of kind.search ?? []) {
      const declared = (kind.list.fields as Record<string, { type: string } | undefined>)[field];
      if (!declared) throw new Error(`record kind ${kind.table} searches ${field}, which its list does not declare`);
      // A prefix is a byte range over text: an id or a number has no beginning to type.
      if (match === 'prefix' && declared.type !== 'string')
        throw new Error(`record kind ${kind.table} searches ${field} by its beginning, which only a string field has`);
    }
    byTable.set(kind.table, kind);
    byTopic.set(kind.topic, kind);
    paths.add(kind.readPath);
  }
  return {
    kinds: [...kinds],
    find: (table) => byTable.get(table),
    findByTopic: (topic) => byTopic.get(topic),
    topics: new Map(kinds.map((kind) => [kind.topic, kind.scope])),
  };
}

/** The platform's own kinds: the registry an app uses unless it is given another. */
export const BUILT_IN_RECORD_KINDS: RecordKindRegistry = recordKindRegistry(RECORD_KINDS);

/** The platform's kind whose changes a webhook topic announces (record-kinds.test.ts checks every topic has exactly one). */
export function recordKindOfTopic(topic: Topic): AnyRecordKind {
  const kind = RECORD_KINDS.find((k) => k.topic === topic);
  if (!kind) throw new Error(`no record kind for topic ${topic}`);
  return kind;
}

/** The platform's kind stored in `table`. */
export function recordKindOf(table: RecordTable): AnyRecordKind {
  const kind = RECORD_KINDS.find((k) => k.table === table);
  if (!kind) throw new Error(`no record kind for table ${table}`);
  return kind;
}
