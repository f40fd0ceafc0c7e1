import {
  TRANSACTION_TYPES,
  Transaction,
  TransactionInput,
  TransactionPatch,
  type Transaction as TransactionRecord,
  type TransactionType,
} from '@feira/contract';
import { defineListResource } from '../../lists/list-resource.js';
import { fromCents, toCents } from '../money.js';
import { COMMON_LIST_FIELDS, type RecordKind, type RowOf } from '../record-kind.js';

type TransactionRow = RowOf<'transactions'>;

function presentTransaction(row: TransactionRow): TransactionRecord {
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

/** Transactions are massive (spec-notes L3, L5): offset ≤ 5000, no total. */
const transactionList = defineListResource<TransactionRow, TransactionRecord>({
  name: 'transactions',
  massive: true,
  fields: {
    ...COMMON_LIST_FIELDS,
    type: { column: 'type', type: 'enum', values: TRANSACTION_TYPES },
    amount: { column: 'amount_cents', type: 'money' },
    currency: { column: 'currency', type: 'string', operators: ['eq', 'in'] },
    order_id: { column: 'order_id', type: 'id', nullable: true },
  },
  sorts: ['created_at', 'updated_at', 'amount'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentTransaction,
});

/** Financial transactions (topic `financial_transaction`): sales, refunds, fees and payouts of a store. */
export const transactionKind: RecordKind<'transactions', TransactionRecord, TransactionInput, TransactionPatch> = {
  table: 'transactions',
  topic: 'financial_transaction',
  scope: 'open:financial-transaction:read',
  readPath: '/seller/v1/financial-analysis/transactions',
  label: 'Transaction',
  labelKey: 'records.kind.transactions',
  openApiTag: 'Financial transactions (scope `open:financial-transaction:read`)',
  demoCount: 180,
  schemas: { record: Transaction, input: TransactionInput, patch: TransactionPatch },
  list: transactionList,
  search: [{ field: 'order_id', match: 'exact' }],
  present: presentTransaction,
  create(input) {
    return {
      type: input.type,
      amount_cents: toCents(input.amount, 'amount'),
      currency: input.currency ?? 'BRL',
      order_id: input.order_id ?? null,
    };
  },
  patch(_current, patch) {
    return {
      ...(patch.type !== undefined && { type: patch.type }),
      ...(patch.amount !== undefined && { amount_cents: toCents(patch.amount, 'amount') }),
      ...(patch.currency !== undefined && { currency: patch.currency }),
      ...(patch.order_id !== undefined && { order_id: patch.order_id }),
    };
  },
  seed: {
    columns: ['type', 'amount_cents', 'currency', 'order_id'],
    fill(v, at, _i, { next, pick, seededId }) {
      const type = pick(TRANSACTION_TYPES);
      const cents = 100 + Math.floor(next() * 50000);
      v[at] = type;
      v[at + 1] = type === 'sale' ? cents : -cents;
      v[at + 2] = 'BRL';
      v[at + 3] = type === 'payout' ? null : seededId('orders');
    },
  },
  trigger: {
    create: () => ({ type: 'fee', amount: -1.5 }),
    update: { amount: -2.5 },
  },
};
