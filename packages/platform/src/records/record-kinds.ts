import type { Topic } from '@feira/contract';
import { orderKind } from './kinds/orders.js';
import { productKind } from './kinds/products.js';
import { ticketKind } from './kinds/tickets.js';
import { transactionKind } from './kinds/transactions.js';
import type { RecordTable } from './record-kind.js';

/**
 * Every kind of business record, in seeding order (a kind's seeded rows may
 * refer to rows of the kinds before it: tickets and transactions to orders).
 * Routes, lists, `feira trigger`, the seeder and the tests read this list;
 * a new kind is one module in kinds/ added here (docs/architecture.md).
 */
export const RECORD_KINDS = [productKind, orderKind, ticketKind, transactionKind] as const;

export type AnyRecordKind = (typeof RECORD_KINDS)[number];

/** The kind whose changes a webhook topic announces (record-kinds.test.ts checks every topic has exactly one). */
export function recordKindOfTopic(topic: Topic): AnyRecordKind {
  const kind = RECORD_KINDS.find((k) => k.topic === topic);
  if (!kind) throw new Error(`no record kind for topic ${topic}`);
  return kind;
}

/** The kind stored in `table`. */
export function recordKindOf(table: RecordTable): AnyRecordKind {
  const kind = RECORD_KINDS.find((k) => k.table === table);
  if (!kind) throw new Error(`no record kind for table ${table}`);
  return kind;
}
