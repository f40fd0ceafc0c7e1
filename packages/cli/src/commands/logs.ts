import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { AdminApiError } from '../sandbox/admin-api.js';
import { NoSandboxError, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';
import { adminOf, type Delivery, deliveryLine, EventsError } from './events.js';

// `feira logs tail`, like `stripe logs tail`: what the sandbox
// does as it happens, one line each: webhook delivery attempts (from the
// delivery log) and shipping-quote calls (from each store's quote log).
// It reads the admin API every `--interval` ms; only entries newer than its
// start are printed.

interface TailOptions extends SandboxFlags {
  tenant?: string[];
  interval: number;
  json?: boolean;
}

interface QuoteCall {
  id: string;
  tenant_id: string;
  session_id: string;
  purpose: string;
  outcome: string;
  latency_ms: number;
  http_status: number | null;
  detail: string | null;
  created_at: string;
}

async function tail(options: TailOptions, signal: AbortSignal): Promise<void> {
  const { api, tenants } = adminOf(options);
  const stores = options.tenant ?? tenants.map((t) => t.id);
  const seenDeliveries = new Map<string, string>();
  const seenCalls = new Set<string>();
  const emit = (kind: 'delivery' | 'quote_call', entry: Delivery | QuoteCall, line: string) =>
    console.log(options.json ? JSON.stringify({ type: kind, ...entry }) : line);

  let first = true;
  while (!signal.aborted) {
    const deliveries = (await api.get('/admin/webhooks/deliveries?_sort=updated_at:desc&_limit=100')) as { results: Delivery[] };
    // A delivery is printed again each time it changes (another attempt, succeeded, dead).
    for (const d of deliveries.results.reverse()) {
      const version = `${d.status}/${d.attempts}/${d.updated_at}`;
      if (seenDeliveries.get(d.id) === version) continue;
      seenDeliveries.set(d.id, version);
      if (!first && !(d.status === 'pending' && d.attempts === 0)) emit('delivery', d, deliveryLine(d));
    }
    for (const store of stores) {
      const calls = (await api.get(`/admin/v1/tenants/${encodeURIComponent(store)}/shipping/quote-calls?_limit=100`)) as {
        results: QuoteCall[];
      };
      for (const c of calls.results.reverse()) {
        if (seenCalls.has(c.id)) continue;
        seenCalls.add(c.id);
        if (!first) {
          emit(
            'quote_call',
            c,
            `${c.created_at}  quote    ${c.session_id}  ${c.purpose.padEnd(10)} ${c.outcome.padEnd(22)} ${c.http_status ?? '-'}  ${c.latency_ms} ms  tenant ${c.tenant_id}`,
          );
        }
      }
    }
    if (first && !options.json) console.log('Tailing webhook deliveries and quote calls (Ctrl-C to stop)…');
    if (first && options.json) console.log(JSON.stringify({ type: 'ready' }));
    first = false;
    await sleep(options.interval, undefined, { signal }).catch(() => {});
  }
}

export function register(program: Command): void {
  const logs = program.command('logs').description("The sandbox's activity");
  const tailCommand = logs
    .command('tail')
    .description('Print webhook deliveries and shipping-quote calls as they happen, one line each')
    .option('--tenant <id...>', 'stores whose quote calls to show (default: the demo stores)')
    .option('--interval <ms>', 'how often to read the sandbox', (value: string) => Math.max(100, Number(value) || 1000), 1000)
    .option('--json', 'one JSON object per line');
  sandboxOptions(tailCommand).action(async (options: TailOptions) => {
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    try {
      await tail(options, stop.signal);
    } catch (error) {
      if (!(error instanceof NoSandboxError || error instanceof AdminApiError || error instanceof EventsError)) throw error;
      console.error(`feira logs tail: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  });
}
