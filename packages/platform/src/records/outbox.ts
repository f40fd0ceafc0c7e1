import type { Topic } from '@feira/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { Schema } from '../storage/schema.js';

export type ChangeStatus = 'CREATION' | 'UPDATE' | 'DELETION';

export interface RecordChange {
  tenantId: string;
  topic: Topic;
  status: ChangeStatus;
  recordId: string;
  /** The record's read path, e.g. `/seller/v0/tickets/<id>` (spec-notes W7). */
  resource: string;
}

/**
 * Appends the webhook message for a record change to the outbox. Call it with
 * the transaction that changes the record (spec-notes W6): the event
 * commits with the change or not at all. The body is serialized here, once,
 * in the spec's shape, and delivered byte for byte.
 */
export async function appendEvent(
  trx: Kysely<Schema>,
  change: RecordChange,
  deps: { clock: Clock; random: Random },
): Promise<string> {
  const id = deps.random.uuid();
  const body = JSON.stringify({
    data: { status: change.status, params: { id: change.recordId }, resource: change.resource },
    tenant_id: change.tenantId,
    topic: change.topic,
  });
  await trx
    .insertInto('outbox_events')
    .values({
      id,
      tenant_id: change.tenantId,
      topic: change.topic,
      status: change.status,
      record_id: change.recordId,
      resource: change.resource,
      body,
      created_at: deps.clock.now().toISOString(),
      dispatched_at: null,
    })
    .execute();
  return id;
}
