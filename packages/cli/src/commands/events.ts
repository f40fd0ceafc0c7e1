import { type Command, InvalidArgumentError } from 'commander';
import { AdminApi, AdminApiError } from '../sandbox/admin-api.js';
import { findSandbox, NoSandboxError, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';

// `feira events list` and `feira events resend <id>`, like
// `stripe events`: the sandbox's webhook deliveries (one per event and
// subscription) from the admin API's delivery log, and a redelivery with the
// same X-Webhook-Id (spec-notes W4).

export interface Delivery {
  id: string;
  event_id: string;
  tenant_id: string;
  topic: string;
  status: string;
  attempts: number;
  /** Every attempt, resends included, as the console counts them. */
  attempts_total: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

interface EventsOptions extends SandboxFlags {
  limit: number;
  topic?: string;
  status?: string;
  json?: boolean;
}

export class EventsError extends Error {}

/** The admin API of the sandbox the flags (or the data folder) point at. */
export function adminOf(flags: SandboxFlags): { api: AdminApi; tenants: Array<{ id: string; name: string }> } {
  const sandbox = findSandbox(flags);
  if (!sandbox.adminToken) {
    throw new EventsError(`no admin token: set FEIRA_ADMIN_TOKEN (none in ${sandbox.dataDir})`);
  }
  return { api: new AdminApi(sandbox.url, sandbox.adminToken), tenants: sandbox.demo?.tenants ?? [] };
}

/** One line per delivery: when, id, topic, state, attempts, the receiver's last answer. */
export function deliveryLine(d: Delivery): string {
  const answer = d.last_status_code !== null ? `HTTP ${d.last_status_code}` : (d.last_error ?? '-');
  return `${d.updated_at}  delivery ${d.id}  ${d.topic.padEnd(21)} ${d.status.padEnd(9)} attempts ${d.attempts_total}  ${answer}  event ${d.event_id}`;
}

async function list(options: EventsOptions): Promise<void> {
  const { api } = adminOf(options);
  const query = new URLSearchParams({ _limit: String(options.limit) });
  if (options.topic) query.set('topic', options.topic);
  if (options.status) query.set('status', options.status);
  const page = (await api.get(`/admin/webhooks/deliveries?${query}`)) as { results: Delivery[] };
  if (options.json) {
    for (const d of page.results) console.log(JSON.stringify(d));
    return;
  }
  if (page.results.length === 0) {
    const filters = [options.status && `status ${options.status}`, options.topic && `topic ${options.topic}`].filter(Boolean);
    console.log(
      filters.length > 0
        ? `No deliveries with ${filters.join(' and ')}.`
        : 'No deliveries yet (`npx feira listen`, then `npx feira trigger order`).',
    );
  }
  for (const d of page.results) console.log(deliveryLine(d));
}

/** `<id>` is a delivery id, or an event id (then every delivery of that event is sent again). */
async function resend(id: string, options: SandboxFlags & { json?: boolean }): Promise<void> {
  const { api } = adminOf(options);
  let ids = [id];
  const byEvent = (await api.get(`/admin/webhooks/deliveries?event_id=${encodeURIComponent(id)}&_limit=100`)) as {
    results: Delivery[];
  };
  if (byEvent.results.length > 0) ids = byEvent.results.map((d) => d.id);
  for (const deliveryId of ids) {
    try {
      const sent = (await api.send('POST', `/admin/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`)) as Delivery;
      console.log(
        options.json ? JSON.stringify(sent) : `Resending delivery ${sent.id} (${sent.topic}, event ${sent.event_id}) now`,
      );
    } catch (error) {
      if (error instanceof AdminApiError && error.status === 404) throw new EventsError(`no delivery or event ${id}`);
      throw error;
    }
  }
}

async function report(run: () => Promise<void>, command: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof EventsError || error instanceof NoSandboxError || error instanceof AdminApiError)) throw error;
    console.error(`feira ${command}: ${error.message}`);
    process.exitCode = 1;
  }
}

export function register(program: Command): void {
  const events = program.command('events').description("The sandbox's webhook events as delivered: list, resend");
  const listCommand = events
    .command('list')
    .description('Recent deliveries, newest first (one per event and subscription)')
    .option(
      '--limit <n>',
      'how many (1-100)',
      (value: string) => {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('must be an integer from 1 to 100');
        return n;
      },
      20,
    )
    .option('--topic <topic>', 'only this topic')
    .option('--status <status>', 'pending, succeeded or dead')
    .option('--json', 'one JSON object per line');
  sandboxOptions(listCommand).action((options: EventsOptions) => report(() => list(options), 'events list'));
  const resendCommand = events
    .command('resend')
    .description('Send a delivery (or every delivery of an event) again now, with the same X-Webhook-Id')
    .argument('<id>', 'a delivery id or an event id')
    .option('--json', 'print the deliveries as JSON');
  sandboxOptions(resendCommand).action((id: string, options: SandboxFlags & { json?: boolean }) =>
    report(() => resend(id, options), 'events resend'),
  );
}
