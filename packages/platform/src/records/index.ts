/**
 * The public face of records/: business records (orders, products, tickets, financial transactions): the kinds registry, writes with their outbox event, routes, seeding.
 * Every other folder imports records/ through this file only (dependency-cruiser rule
 * 'capability-public-face'); files inside records/ import each other directly.
 */
export { insertOrder, type OrderRow, orderKind } from './kinds/orders.js';
export { type ProductRow, productKind } from './kinds/products.js';
export { ticketKind } from './kinds/tickets.js';
export { transactionKind } from './kinds/transactions.js';
export { sumOfLinesCents } from './money.js';
export { appendEvent, appendUndispatchedTestEvent, outboxEventsInWindow, type RecordChange } from './outbox.js';
export { firstProductSkus, productStock } from './product-skus.js';
export {
  type AnyRecordList,
  type KindStorage,
  type LocalizedText,
  type RecordKind,
  type RecordSearchField,
  type RecordTable,
  recordPath,
} from './record-kind.js';
export { createRecordKindTables } from './record-kind-tables.js';
export {
  type AnyRecordKind,
  BUILT_IN_RECORD_KINDS,
  RECORD_KINDS,
  type RecordKindRegistry,
  type RegisteredRecordKind,
  recordKindOf,
  recordKindOfTopic,
  recordKindRegistry,
} from './record-kinds.js';
export { recordRoutes } from './record-routes.js';
export {
  RECORD_SEARCH_MAX_LENGTH,
  recordSearchFields,
  recordSearchTerm,
  searchStoreRecords,
} from './record-search.js';
export {
  deleteRecord,
  findRecord,
  insertRecord,
  inTransaction,
  type RecordWriteDeps,
  storeRecordsQuery,
  updateRecord,
} from './record-write.js';
export { type SeedCounts, type SeedDeps, type SeedResult, seedRecords } from './seed-records.js';
