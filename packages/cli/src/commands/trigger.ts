import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isTopic, TOPIC_NAMES, type Topic } from '@feira/contract';
import { type Command, InvalidArgumentError } from 'commander';

// `feira trigger <topic>` (issue 7): makes an event flow in the sandbox by
// creating, updating or deleting a record through the admin API — the same
// writes the marketplace makes, each appending its outbox event in the same
// transaction (SPEC-DECISIONS W6), so the webhook that follows is the real one.

const ACTIONS = ['create', 'update', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

/** Admin collection and a minimal valid record per topic (SPEC-DECISIONS W7). */
const TOPIC_RECORDS: Record<Topic, { collection: string; create: (tag: string) => object; update: object }> = {
  sac_ticket: {
    collection: 'tickets',
    create: (tag) => ({
      subject: `Triggered by feira trigger (${tag})`,
      customer: { id: `cust-${tag}`, name: 'Trigger Customer' },
    }),
    update: { status: 'answered' },
  },
  order: {
    collection: 'orders',
    create: (tag) => ({
      customer: { id: `cust-${tag}`, name: 'Trigger Customer' },
      items: [{ sku: `TRIGGER-${tag}`, quantity: 1, price: 10 }],
    }),
    update: { status: 'approved' },
  },
  product: {
    collection: 'products',
    create: (tag) => ({
      sku: `TRIGGER-${tag}`,
      title: 'Triggered product',
      price: 10,
      stock: 5,
      dimensions: { depth: 10, height: 10, width: 10, weight: 500 },
    }),
    update: { stock: 4 },
  },
  financial_transaction: {
    collection: 'transactions',
    create: () => ({ type: 'fee', amount: -1.5 }),
    update: { amount: -2.5 },
  },
};

const STATUS_OF: Record<Action, string> = { create: 'CREATION', update: 'UPDATE', delete: 'DELETION' };

interface TriggerOptions {
  tenant?: string;
  action: Action;
  id?: string;
  url: string;
  adminToken?: string;
  dataDir: string;
  json?: boolean;
}

/** Reads a file the sandbox keeps in its data folder (admin token, demo credentials); undefined if absent. */
function fromDataDir(dataDir: string, name: string): string | undefined {
  try {
    return readFileSync(join(resolve(dataDir), name), 'utf8').trim();
  } catch {
    return undefined;
  }
}

class TriggerError extends Error {}

async function admin(options: TriggerOptions, token: string, method: string, path: string, body?: object): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(new URL(path, options.url), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new TriggerError(`cannot reach the sandbox at ${options.url} (is \`feira start\` running?)`);
  }
  const text = await response.text();
  const parsed = text
    ? (JSON.parse(text) as { message?: string; details?: Array<{ field: string; message: string }> })
    : undefined;
  if (!response.ok) {
    const details = parsed?.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
    throw new TriggerError(
      `${method} ${path} answered ${response.status}: ${parsed?.message ?? ''}${details ? ` (${details})` : ''}`,
    );
  }
  return parsed;
}

async function trigger(topic: Topic, options: TriggerOptions) {
  // The admin token never appears in output or errors.
  const token = options.adminToken ?? fromDataDir(options.dataDir, 'admin-token');
  if (!token)
    throw new TriggerError('no admin token: pass --admin-token, set FEIRA_ADMIN_TOKEN, or run from the folder of `feira start`');
  let tenant = options.tenant;
  if (!tenant) {
    const demo = fromDataDir(options.dataDir, 'demo-credentials.json');
    tenant = demo ? (JSON.parse(demo) as { tenants?: Array<{ id: string }> }).tenants?.[0]?.id : undefined;
    if (!tenant) throw new TriggerError('no tenant: pass --tenant <id> (no demo credentials found in the data folder)');
  }
  const spec = TOPIC_RECORDS[topic];
  const base = `/admin/v1/tenants/${encodeURIComponent(tenant)}/${spec.collection}`;
  // `--id` names the record to update or delete; a create always makes a new record.
  let id = options.action === 'create' ? undefined : options.id;
  const events: string[] = [];
  if (!id) {
    // Update and delete need a record: create one first (that is one more event).
    const created = (await admin(options, token, 'POST', base, spec.create(randomBytes(4).toString('hex').toUpperCase()))) as {
      id: string;
    };
    id = created.id;
    events.push(STATUS_OF.create);
  }
  if (options.action === 'update') {
    await admin(options, token, 'PATCH', `${base}/${encodeURIComponent(id)}`, spec.update);
    events.push(STATUS_OF.update);
  } else if (options.action === 'delete') {
    await admin(options, token, 'DELETE', `${base}/${encodeURIComponent(id)}`);
    events.push(STATUS_OF.delete);
  }
  return { topic, action: options.action, tenant_id: tenant, record_id: id, events };
}

export function register(program: Command): void {
  program
    .command('trigger')
    .description('Create, update or delete a sandbox record so a webhook event flows')
    .argument('<topic>', `one of ${TOPIC_NAMES.join(', ')}`, (value: string) => {
      if (!isTopic(value)) throw new InvalidArgumentError(`must be one of ${TOPIC_NAMES.join(', ')}`);
      return value;
    })
    .option('--tenant <id>', 'tenant (store) id; default the first demo store')
    .option(
      '--action <action>',
      'create, update or delete (update/delete without --id create a record first)',
      (value: string) => {
        if (!(ACTIONS as readonly string[]).includes(value)) throw new InvalidArgumentError('must be create, update or delete');
        return value;
      },
      'create',
    )
    .option('--id <id>', 'the record to update or delete')
    .option('--url <url>', 'sandbox address (env FEIRA_URL)', process.env.FEIRA_URL ?? 'http://127.0.0.1:8080')
    .option('--admin-token <token>', 'admin API token (env FEIRA_ADMIN_TOKEN; default <data-dir>/admin-token)')
    .option('--data-dir <path>', 'the sandbox data folder (env FEIRA_DATA_DIR)', process.env.FEIRA_DATA_DIR ?? './.feira')
    .option('--json', 'print the result as JSON')
    .action(async (topic: Topic, raw: Omit<TriggerOptions, 'adminToken'> & { adminToken?: string }) => {
      const options: TriggerOptions = { ...raw, adminToken: raw.adminToken ?? process.env.FEIRA_ADMIN_TOKEN };
      try {
        const result = await trigger(topic, options);
        if (options.json) console.log(JSON.stringify(result));
        else
          console.log(
            `${result.events.join(' + ')} of ${topic} ${result.record_id} in tenant ${result.tenant_id}: the webhook is on its way`,
          );
      } catch (error) {
        if (!(error instanceof TriggerError)) throw error;
        if (options.json) console.log(JSON.stringify({ error: error.message }));
        console.error(`feira trigger: ${error.message}`);
        process.exitCode = 1;
      }
    });
}
