import type { Transaction, TransactionInput, TransactionPatch, TransactionType } from '@feira/contract';
import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../core/platform-error.js';
import type { Schema } from '../storage/schema.js';
import { fromCents, toCents } from './money.js';
import { appendEvent } from './outbox.js';
import { inTransaction, type RecordWriteDeps } from './record-write.js';

export type TransactionRow = Selectable<Schema['transactions']>;

/** The read path of a financial transaction: the webhook `data.resource` (SPEC-DECISIONS W7). */
export const transactionPath = (id: string) => `/seller/v1/financial-analysis/transactions/${id}`;

export function presentTransaction(row: TransactionRow): Transaction {
  return {
    id: row.id,
    type: row.type as TransactionType,
    amount: fromCents(row.amount_cents),
    currency: row.currency,
    order_id: row.order_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function findTransaction(db: Kysely<Schema>, tenantId: string, id: string): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** Creates a transaction and its CREATION event (topic `financial_transaction`) in one transaction. */
export async function insertTransaction(
  db: Kysely<Schema>,
  tenantId: string,
  input: TransactionInput,
  deps: RecordWriteDeps,
): Promise<Transaction> {
  const now = deps.clock.now().toISOString();
  const row: TransactionRow = {
    id: deps.random.uuid(),
    tenant_id: tenantId,
    type: input.type,
    amount_cents: toCents(input.amount, 'amount'),
    currency: input.currency ?? 'BRL',
    order_id: input.order_id ?? null,
    created_at: now,
    updated_at: now,
  };
  await inTransaction(db, async (trx) => {
    await trx.insertInto('transactions').values(row).execute();
    await appendEvent(
      trx,
      { tenantId, topic: 'financial_transaction', status: 'CREATION', recordId: row.id, resource: transactionPath(row.id) },
      deps,
    );
  });
  return presentTransaction(row);
}

/** Changes the fields given and appends an UPDATE event; another tenant's transaction is a 404. */
export async function updateTransaction(
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
  patch: TransactionPatch,
  deps: RecordWriteDeps,
): Promise<Transaction> {
  return inTransaction(db, async (trx) => {
    const current = await findTransaction(trx, tenantId, id);
    if (!current) throw notFound('Transaction');
    const next: TransactionRow = {
      ...current,
      ...(patch.type !== undefined && { type: patch.type }),
      ...(patch.amount !== undefined && { amount_cents: toCents(patch.amount, 'amount') }),
      ...(patch.currency !== undefined && { currency: patch.currency }),
      ...(patch.order_id !== undefined && { order_id: patch.order_id }),
      updated_at: deps.clock.now().toISOString(),
    };
    const { id: _id, tenant_id: _tenant, created_at: _created, ...changes } = next;
    await trx.updateTable('transactions').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
    await appendEvent(
      trx,
      { tenantId, topic: 'financial_transaction', status: 'UPDATE', recordId: id, resource: transactionPath(id) },
      deps,
    );
    return presentTransaction(next);
  });
}

/** Deletes a transaction and appends a DELETION event; another tenant's transaction is a 404. */
export async function deleteTransaction(db: Kysely<Schema>, tenantId: string, id: string, deps: RecordWriteDeps): Promise<void> {
  await inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom('transactions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound('Transaction');
    await appendEvent(
      trx,
      { tenantId, topic: 'financial_transaction', status: 'DELETION', recordId: id, resource: transactionPath(id) },
      deps,
    );
  });
}
