import type { Kysely, QueryCreator } from 'kysely';
import { tenantExists } from '../accounts/index.js';
import type { PlatformError } from '../core/platform-error.js';
import { refuse } from '../core/refusals.js';
import { isForeignKeyViolation, isUniqueViolation } from '../storage/database-errors.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import type { Schema } from '../storage/schema.js';
import { appendEvent, type ChangeStatus, type OutboxDeps, outboxEventRow, type RecordChange } from './outbox.js';
import {
  type RecordFields,
  type RecordKeyColumn,
  type RecordKind,
  type RecordTable,
  type RowOf,
  recordPath,
} from './record-kind.js';

/**
 * The one insert, update and delete of every record kind (records/kinds/):
 * each writes its outbox event in the same transaction as the change
 * (spec-notes W6), so a webhook announces exactly the changes that committed.
 */

/** What every record write needs: time and ids from the injected seams, and the database its outbox event signals. */
export type RecordWriteDeps = OutboxDeps;

/**
 * Kysely checks a row against its table when the table is a literal; a kind's
 * table is a type parameter, which it cannot resolve. The kind's own types
 * (`RowOf<T>`, `RecordFields<T>`) check every row, so the writes below see the
 * record tables through this one structural view.
 */
type RecordRow = { id: string; tenant_id: string; created_at: string; updated_at: string } & Record<string, unknown>;
type RecordDatabase = Kysely<Record<string, RecordRow>>;
const recordDatabase = (db: Kysely<Schema>) => db as unknown as RecordDatabase;

/** A kind's new columns with the key columns: a whole row of its table (see RecordRow). */
function completeRow<T extends RecordTable>(fields: RecordFields<T>, keys: Pick<RecordRow, RecordKeyColumn>): RowOf<T> {
  return { ...fields, ...keys } as unknown as RowOf<T>;
}

/**
 * Runs `work`, which appends outbox events, in a transaction: the caller's,
 * when `db` already is one, or a new one. Either way the record change and its
 * outbox event commit together (spec-notes W6). After a transaction of its own
 * commits, it signals the dispatchers (storage/outbox-signal.ts); a caller
 * passing its transaction signals after committing it.
 */
export async function inTransaction<T>(
  db: Kysely<Schema>,
  deps: OutboxDeps,
  work: (trx: Kysely<Schema>) => Promise<T>,
): Promise<T> {
  const result = db.isTransaction ? await work(db) : await db.transaction().execute(work);
  signalIfCommitted(db, deps);
  return result;
}

/** Wakes the dispatchers after a write on `db` that appended events, once it is committed: unless `db` is the caller's transaction. */
function signalIfCommitted(db: Kysely<Schema>, deps: OutboxDeps): void {
  if (!db.isTransaction) deps.database.outboxSignal.notify();
}

function tenantNotFound(): PlatformError {
  return refuse('RECORD_TENANT_NOT_FOUND');
}

/**
 * Admin reads and changes name a tenant in the path: an unknown one is a 404.
 * Creates need no such look-up: the insert's foreign key refuses an unknown
 * tenant, and `insertRecord` turns that into the same 404.
 */
export async function assertTenantExists(db: Kysely<Schema>, tenantId: string): Promise<void> {
  if (!(await tenantExists(db, tenantId))) throw tenantNotFound();
}

/** The query over one store's records of a kind, that its lists page through (seller API, admin API, console). */
export function storeRecordsQuery(
  db: Kysely<Schema>,
  kind: RecordKind<RecordTable, unknown, unknown, unknown>,
  tenantId: string,
) {
  return db.selectFrom(kind.table).selectAll().where('tenant_id', '=', tenantId);
}

/** One of the tenant's records, or undefined (another tenant's record is not found either). */
export async function findRecord<T extends RecordTable>(
  kind: RecordKind<T, unknown, unknown, unknown>,
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
): Promise<RowOf<T> | undefined> {
  const row = await recordDatabase(db)
    .selectFrom(kind.table as string)
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row as RowOf<T> | undefined;
}

/** The outbox entry of a change to one record. */
function change(
  kind: Pick<RecordKind<RecordTable, unknown, unknown, unknown>, 'topic' | 'readPath'>,
  tenantId: string,
  id: string,
  status: ChangeStatus,
): RecordChange {
  return { tenantId, topic: kind.topic, status, recordId: id, resource: recordPath(kind, id) };
}

/**
 * Runs a write, turning a unique-constraint violation into the kind's refusal
 * (a 409) when it has one, and a foreign-key violation into "Tenant not found"
 * (a 404): a record's only parent is its tenant.
 */
async function refusingViolations<T>(kind: { uniqueViolation?(): PlatformError }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (kind.uniqueViolation && isUniqueViolation(error)) throw kind.uniqueViolation();
    if (isForeignKeyViolation(error)) throw tenantNotFound();
    throw error;
  }
}

/** Creates a record and its CREATION event in one transaction (the caller's when `db` is one). */
export async function insertRecord<T extends RecordTable, Rec, Input>(
  kind: RecordKind<T, Rec, Input, unknown>,
  db: Kysely<Schema>,
  tenantId: string,
  input: Input,
  deps: RecordWriteDeps,
): Promise<Rec> {
  const now = deps.clock.now().toISOString();
  const id = deps.random.uuid();
  const row = completeRow<T>(kind.create(input, deps.random), { id, tenant_id: tenantId, created_at: now, updated_at: now });
  if (dialectAdapter(deps.database).supportsWritableCte) {
    // One statement, `WITH record AS (INSERT …) INSERT INTO outbox_events …`: atomic by itself, one round
    // trip instead of four (BEGIN, two INSERTs, COMMIT), in the caller's transaction or alone. Each pg query
    // costs the platform CPU of its own, a visible share of an order write (docs/decisions.md D4).
    const event = outboxEventRow(change(kind, tenantId, id, 'CREATION'), deps);
    await refusingViolations(kind, () =>
      db
        .with('record', (qb) =>
          (qb as unknown as QueryCreator<Record<string, RecordRow>>).insertInto(kind.table as string).values(row as RecordRow),
        )
        .insertInto('outbox_events')
        .values(event)
        .execute(),
    );
    signalIfCommitted(db, deps);
    return kind.present(row);
  }
  await refusingViolations(kind, () =>
    inTransaction(db, deps, async (trx) => {
      await recordDatabase(trx)
        .insertInto(kind.table as string)
        .values(row as RecordRow)
        .execute();
      await appendEvent(trx, change(kind, tenantId, id, 'CREATION'), deps);
    }),
  );
  return kind.present(row);
}

/** Changes the fields a patch gives and appends an UPDATE event; another tenant's record is a 404. */
export async function updateRecord<T extends RecordTable, Rec, Patch>(
  kind: RecordKind<T, Rec, unknown, Patch>,
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
  patch: Patch,
  deps: RecordWriteDeps,
): Promise<Rec> {
  return refusingViolations(kind, () =>
    inTransaction(db, deps, async (trx) => {
      const current = await findRecord(kind, trx, tenantId, id);
      if (!current) throw refuse('RECORD_NOT_FOUND', { what: kind.label });
      const changes = { ...kind.patch(current, patch), updated_at: deps.clock.now().toISOString() };
      await recordDatabase(trx)
        .updateTable(kind.table as string)
        .set(changes as Partial<RecordRow>)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute();
      await appendEvent(trx, change(kind, tenantId, id, 'UPDATE'), deps);
      return kind.present({ ...current, ...changes });
    }),
  );
}

/** Deletes a record and appends a DELETION event; another tenant's record is a 404. */
export async function deleteRecord<T extends RecordTable>(
  kind: RecordKind<T, unknown, unknown, unknown>,
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
  deps: RecordWriteDeps,
): Promise<void> {
  await inTransaction(db, deps, async (trx) => {
    const result = await recordDatabase(trx)
      .deleteFrom(kind.table as string)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw refuse('RECORD_NOT_FOUND', { what: kind.label });
    await appendEvent(trx, change(kind, tenantId, id, 'DELETION'), deps);
  });
}
