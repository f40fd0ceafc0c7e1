import {
  TICKET_STATUSES,
  Ticket,
  TicketInput,
  TicketPatch,
  type Ticket as TicketRecord,
  type TicketStatus,
} from '@feira/contract';
import { defineListResource } from '../../lists/list-resource.js';
import { COMMON_LIST_FIELDS, type RecordKind, type RowOf } from '../record-kind.js';
import { SEED_CUSTOMERS } from '../seed-records-values.js';

type TicketRow = RowOf<'tickets'>;

function presentTicket(row: TicketRow): TicketRecord {
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

const ticketList = defineListResource<TicketRow, TicketRecord>({
  name: 'tickets',
  fields: {
    ...COMMON_LIST_FIELDS,
    subject: { column: 'subject', type: 'string' },
    status: { column: 'status', type: 'enum', values: TICKET_STATUSES },
    order_id: { column: 'order_id', type: 'id', nullable: true },
    'customer.id': { column: 'customer_id', type: 'id' },
    'customer.name': { column: 'customer_name', type: 'string' },
  },
  sorts: ['created_at', 'updated_at'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentTicket,
});

/** What the marketplace's shoppers write to a Brazilian store, in their language (the demo's and the seeder's tickets). */
const SEED_SUBJECTS = [
  'Onde está meu pedido?',
  'Recebi o tamanho errado',
  'Preciso da nota fiscal',
  'Produto chegou avariado',
  'Mudança de endereço de entrega',
];

/**
 * Customer-service tickets (topic `sac_ticket`); their read path is the
 * spec's own example of a webhook `resource` (spec-notes W7).
 */
export const ticketKind: RecordKind<'tickets', TicketRecord, TicketInput, TicketPatch> = {
  table: 'tickets',
  topic: 'sac_ticket',
  scope: 'open:ticket:read',
  readPath: '/seller/v0/tickets',
  label: 'Ticket',
  labelKey: 'records.kind.tickets',
  openApiTag: 'Customer-service tickets (scope `open:ticket:read`)',
  demoCount: 40,
  schemas: { record: Ticket, input: TicketInput, patch: TicketPatch },
  list: ticketList,
  search: [
    { field: 'order_id', match: 'exact' },
    { field: 'customer.id', match: 'exact' },
  ],
  present: presentTicket,
  create(input) {
    return {
      subject: input.subject,
      status: input.status ?? 'open',
      order_id: input.order_id ?? null,
      customer_id: input.customer.id,
      customer_name: input.customer.name,
    };
  },
  patch(_current, patch) {
    return {
      ...(patch.subject !== undefined && { subject: patch.subject }),
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.order_id !== undefined && { order_id: patch.order_id }),
      ...(patch.customer !== undefined && { customer_id: patch.customer.id, customer_name: patch.customer.name }),
    };
  },
  seed: {
    columns: ['subject', 'status', 'order_id', 'customer_id', 'customer_name'],
    fill(v, at, _i, { next, pick, seededId }) {
      const customer = Math.floor(next() * SEED_CUSTOMERS.count);
      v[at] = pick(SEED_SUBJECTS);
      v[at + 1] = pick(TICKET_STATUSES);
      v[at + 2] = seededId('orders');
      v[at + 3] = SEED_CUSTOMERS.ids[customer];
      v[at + 4] = SEED_CUSTOMERS.names[customer];
    },
  },
  trigger: {
    create: (tag) => ({
      subject: `Triggered by feira trigger (${tag})`,
      customer: { id: `cust-${tag}`, name: 'Trigger Customer' },
    }),
    update: { status: 'answered' },
  },
};
