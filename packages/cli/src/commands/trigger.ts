import { randomBytes } from 'node:crypto';
import { isTopic, TOPIC_NAMES, type Topic } from '@feira/contract';
import { recordKindOfTopic } from '@feira/platform/cli';
import { type Command, InvalidArgumentError } from 'commander';
import { settingFromEnv } from '../config/start-config.js';
import { AdminApi, AdminApiError } from '../sandbox/admin-api.js';
import { findSandbox, NoSandboxError, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';

// `feira trigger <topic>`: makes an event flow in the sandbox by
// creating, updating or deleting a record through the admin API — the same
// writes the marketplace makes, each appending its outbox event in the same
// transaction (spec-notes W6), so the webhook that follows is the real one.

const ACTIONS = ['create', 'update', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

const STATUS_OF: Record<Action, string> = { create: 'CREATION', update: 'UPDATE', delete: 'DELETION' };

interface TriggerOptions extends SandboxFlags {
  tenant?: string;
  action: Action;
  id?: string;
  adminToken?: string;
  json?: boolean;
}

class TriggerError extends Error {}

/** Active subscriptions of a store to a topic: where the event will be delivered. */
async function activeSubscriptions(api: AdminApi, tenant: string, topic: Topic): Promise<number> {
  const page = (await api.get(
    `/admin/webhooks/subscriptions?tenant_id=${encodeURIComponent(tenant)}&topic=${topic}&state=active&_limit=100`,
  )) as { results: unknown[] };
  return page.results.length;
}

async function trigger(topic: Topic, options: TriggerOptions) {
  const sandbox = findSandbox(options);
  // The admin token never appears in output or errors.
  const token = options.adminToken ?? sandbox.adminToken;
  if (!token) throw new TriggerError(`no admin token: pass --admin-token or set FEIRA_ADMIN_TOKEN (none in ${sandbox.dataDir})`);
  const tenant = options.tenant ?? sandbox.demo?.tenants?.[0]?.id;
  if (!tenant) throw new TriggerError('no tenant: pass --tenant <id> (no demo credentials found in the data folder)');
  const api = new AdminApi(sandbox.url, token);
  // The record kind whose changes the topic announces: its admin collection and minimal valid bodies.
  const kind = recordKindOfTopic(topic);
  const base = `/admin/v1/tenants/${encodeURIComponent(tenant)}/${kind.table}`;
  // `--id` names the record to update or delete; a create always makes a new record.
  let id = options.action === 'create' ? undefined : options.id;
  const events: string[] = [];
  if (!id) {
    // Update and delete need a record: create one first (that is one more event).
    const created = (await api.send('POST', base, kind.trigger.create(randomBytes(4).toString('hex').toUpperCase()))) as {
      id: string;
    };
    id = created.id;
    events.push(STATUS_OF.create);
  }
  if (options.action === 'update') {
    await api.send('PATCH', `${base}/${encodeURIComponent(id)}`, kind.trigger.update);
    events.push(STATUS_OF.update);
  } else if (options.action === 'delete') {
    await api.send('DELETE', `${base}/${encodeURIComponent(id)}`);
    events.push(STATUS_OF.delete);
  }
  const subscriptions = await activeSubscriptions(api, tenant, topic);
  return { topic, action: options.action, tenant_id: tenant, record_id: id, events, subscriptions };
}

function summary(result: Awaited<ReturnType<typeof trigger>>): string {
  const what = `${result.events.join(' + ')} of ${result.topic} ${result.record_id} in tenant ${result.tenant_id}`;
  if (result.subscriptions === 0) {
    return `${what}: no active subscription to ${result.topic} in this store, so nothing is delivered (run \`npx feira listen\` first)`;
  }
  const plural = result.subscriptions === 1 ? 'subscription' : 'subscriptions';
  return `${what}: on its way to ${result.subscriptions} ${plural} (\`npx feira events list\` shows the deliveries)`;
}

export function register(program: Command): void {
  const command = program
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
    .option('--admin-token <token>', 'admin API token (env FEIRA_ADMIN_TOKEN; default <data-dir>/admin-token)')
    .option('--json', 'print the result as JSON');
  sandboxOptions(command).action(async (topic: Topic, raw: Omit<TriggerOptions, 'adminToken'> & { adminToken?: string }) => {
    const options: TriggerOptions = { ...raw, adminToken: raw.adminToken ?? settingFromEnv('platform.adminToken') };
    try {
      const result = await trigger(topic, options);
      console.log(options.json ? JSON.stringify(result) : summary(result));
    } catch (error) {
      if (!(error instanceof TriggerError || error instanceof NoSandboxError || error instanceof AdminApiError)) throw error;
      if (options.json) console.log(JSON.stringify({ error: error.message }));
      console.error(`feira trigger: ${error.message}`);
      process.exitCode = 1;
    }
  });
}
