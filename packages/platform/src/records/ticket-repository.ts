import type { Ticket, TicketInput, TicketPatch, TicketStatus } from '@feira/contract';
import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../core/platform-error.js';
import type { Schema } from '../storage/schema.js';
import { appendEvent } from './outbox.js';
import { inTransaction, type RecordWriteDeps } from './record-write.js';

export type TicketRow = Selectable<Schema['tickets']>;

/** The read path of a ticket, the spec's own example of a webhook `resource` (SPEC-DECISIONS W7). */
export const ticketPath = (id: string) => `/seller/v0/tickets/${id}`;

export function presentTicket(row: TicketRow): Ticket {
  return {
    id: row.id,
    subject: row.subject,
    status: row.status as TicketStatus,
    order_id: row.order_id,
    customer: { id: row.customer_id, name: row.customer_name },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function findTicket(db: Kysely<Schema>, tenantId: string, id: string): Promise<TicketRow | undefined> {
  return db.selectFrom('tickets').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** Creates a ticket and its CREATION event (topic `sac_ticket`) in one transaction. */
export async function insertTicket(
  db: Kysely<Schema>,
  tenantId: string,
  input: TicketInput,
  deps: RecordWriteDeps,
): Promise<Ticket> {
  const now = deps.clock.now().toISOString();
  const row: TicketRow = {
    id: deps.random.uuid(),
    tenant_id: tenantId,
    subject: input.subject,
    status: input.status ?? 'open',
    order_id: input.order_id ?? null,
    customer_id: input.customer.id,
    customer_name: input.customer.name,
    created_at: now,
    updated_at: now,
  };
  await inTransaction(db, async (trx) => {
    await trx.insertInto('tickets').values(row).execute();
    await appendEvent(
      trx,
      { tenantId, topic: 'sac_ticket', status: 'CREATION', recordId: row.id, resource: ticketPath(row.id) },
      deps,
    );
  });
  return presentTicket(row);
}

/** Changes the fields given and appends an UPDATE event; another tenant's ticket is a 404. */
export async function updateTicket(
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
  patch: TicketPatch,
  deps: RecordWriteDeps,
): Promise<Ticket> {
  return inTransaction(db, async (trx) => {
    const current = await findTicket(trx, tenantId, id);
    if (!current) throw notFound('Ticket');
    const next: TicketRow = {
      ...current,
      ...(patch.subject !== undefined && { subject: patch.subject }),
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.order_id !== undefined && { order_id: patch.order_id }),
      ...(patch.customer !== undefined && { customer_id: patch.customer.id, customer_name: patch.customer.name }),
      updated_at: deps.clock.now().toISOString(),
    };
    const { id: _id, tenant_id: _tenant, created_at: _created, ...changes } = next;
    await trx.updateTable('tickets').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
    await appendEvent(trx, { tenantId, topic: 'sac_ticket', status: 'UPDATE', recordId: id, resource: ticketPath(id) }, deps);
    return presentTicket(next);
  });
}

/** Deletes a ticket and appends a DELETION event; another tenant's ticket is a 404. */
export async function deleteTicket(db: Kysely<Schema>, tenantId: string, id: string, deps: RecordWriteDeps): Promise<void> {
  await inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom('tickets').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound('Ticket');
    await appendEvent(trx, { tenantId, topic: 'sac_ticket', status: 'DELETION', recordId: id, resource: ticketPath(id) }, deps);
  });
}
