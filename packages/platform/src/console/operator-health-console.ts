import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_CLOCK_STEP_MS } from '../admin/clock-routes.js';
import { durationMs } from '../core/duration.js';
import { requestTranslator, translatedRefusal } from '../i18n/i18n.js';
import { outboxEventsInWindow } from '../records/index.js';
import { quoteLatenciesSince } from '../shipping/index.js';
import { deliveriesInWindow, deliveryAttemptsSince } from '../webhooks/index.js';
import type { ConsoleKit } from './console-kit.js';
import { field, type OperatorFrame } from './operator-frame.js';
import { type HealthPoint, healthView } from './operator-views.js';

/** The health charts read at most this many rows of each source over the hour (a busy platform makes more). */
const HEALTH_ROW_LIMIT = 50_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

type HealthPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  clockNote?: { message?: string; error?: string },
) => Promise<FastifyReply>;

/** The health page: the platform's last hour charted, and the sandbox clock's form in sandbox mode. */
export function healthPageOf(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame): HealthPage {
  const platform = app.platform;
  const { page } = operator;

  async function healthPage(request: FastifyRequest, reply: FastifyReply, clockNote: { message?: string; error?: string } = {}) {
    const t = requestTranslator(request);
    const sandboxClock = platform.sandboxClock;
    // Another process may have moved the sandbox clock since this one last read it.
    await sandboxClock?.refresh();
    const { points, truncated } = await healthOverHour(app, platform.clock.now());
    const clock = sandboxClock && {
      now: sandboxClock.now(),
      offsetSeconds: sandboxClock.offsetMs / 1000,
      csrf: kit.csrfToken(request, reply),
      message: clockNote.message ?? null,
      error: clockNote.error ?? null,
    };
    return page(request, reply, t, true, {
      ...(clockNote.error ? { status: 422 } : {}),
      title: t.text('health.title'),
      scripts: ['/console/assets/health.js'],
      styles: ['/console/assets/uplot.css'],
      body: healthView(t, { points, truncated, ...(clock ? { clock } : {}) }),
    });
  }

  return healthPage;
}

/** The health page, with a notice when the sandbox clock was just moved. */
export function showHealth(operator: OperatorFrame, healthPage: HealthPage) {
  const { guard } = operator;
  return async function showHealth(request: FastifyRequest, reply: FastifyReply) {
    if (!(await guard(request, reply, '/console/operator'))) return reply;
    const moved = (request.query as Record<string, string | undefined>).clock;
    const t = requestTranslator(request);
    return healthPage(request, reply, moved === '1' ? { message: t.text('operator.clock.moved') } : {});
  };
}

/** Moves the sandbox clock forward (storage/sandbox-clock.ts), as POST /admin/v1/clock/advance does; sandbox mode only. */
export function advanceSandboxClock(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame, healthPage: HealthPage) {
  const platform = app.platform;
  const { guard } = operator;
  return async function advanceSandboxClock(request: FastifyRequest, reply: FastifyReply) {
    if (!(await guard(request, reply, '/console/operator/health'))) return reply;
    const t = requestTranslator(request);
    const sandboxClock = platform.sandboxClock;
    if (!sandboxClock) throw translatedRefusal(t, 'CONSOLE_CLOCK_SANDBOX_ONLY');
    const ms = durationMs(field(request.body, 'duration', 40));
    if (ms === null || ms < 1000 || ms > MAX_CLOCK_STEP_MS)
      return healthPage(request, reply, { error: t.text('operator.clock.invalid') });
    await sandboxClock.advance(ms);
    return kit.seeOther(reply, '/console/operator/health?clock=1#clock');
  };
}

/**
 * Minute by minute over the last hour, from the platform's own tables: work
 * waiting (events not yet fanned out and deliveries not yet finished) and the
 * age of the oldest, delivery attempts by outcome, and quote latency p50/p99
 * across stores. Each source is read newest first, at most
 * {@link HEALTH_ROW_LIMIT} rows.
 */
export async function healthOverHour(app: FastifyInstance, now: Date): Promise<{ points: HealthPoint[]; truncated: boolean }> {
  const { db } = app.platform.database;
  const end = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const start = end - HOUR_MS;
  const startIso = new Date(start).toISOString();
  await app.shipping.quoteLog.flush();
  const log = await app.shipping.quoteLog.store.reader();
  const [events, deliveries, attempts, quotes] = await Promise.all([
    outboxEventsInWindow(db, startIso, HEALTH_ROW_LIMIT),
    deliveriesInWindow(db, startIso, HEALTH_ROW_LIMIT),
    deliveryAttemptsSince(db, startIso, HEALTH_ROW_LIMIT),
    quoteLatenciesSince(log, startIso, HEALTH_ROW_LIMIT),
  ]);
  const truncated = [events, deliveries, attempts, quotes].some((rows) => rows.length >= HEALTH_ROW_LIMIT);
  // When each piece of work was waiting: [from, until) in ms; until is Infinity while it still waits.
  const waiting: Array<[number, number]> = [
    ...events.map((e): [number, number] => [
      Date.parse(e.created_at),
      e.dispatched_at ? Date.parse(e.dispatched_at) : Number.POSITIVE_INFINITY,
    ]),
    ...deliveries.map((d): [number, number] => [
      Date.parse(d.created_at),
      d.state === 'pending' ? Number.POSITIVE_INFINITY : Date.parse(d.delivered_at ?? d.updated_at),
    ]),
  ];
  const count = HOUR_MS / MINUTE_MS;
  const succeeded = new Array<number>(count).fill(0);
  const failed = new Array<number>(count).fill(0);
  for (const a of attempts) {
    const i = Math.floor((Date.parse(a.started_at) - start) / MINUTE_MS);
    if (i < 0 || i >= count) continue;
    if (a.outcome === 'succeeded') succeeded[i] = (succeeded[i] ?? 0) + 1;
    else failed[i] = (failed[i] ?? 0) + 1;
  }
  const latencies: number[][] = Array.from({ length: count }, () => []);
  for (const q of quotes) {
    const i = Math.floor((Date.parse(q.created_at) - start) / MINUTE_MS);
    if (i >= 0 && i < count) latencies[i]?.push(Number(q.latency_ms));
  }
  const points: HealthPoint[] = [];
  for (let i = 0; i < count; i++) {
    const at = Math.min(start + (i + 1) * MINUTE_MS, now.getTime());
    let backlog = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const [from, until] of waiting) {
      if (from <= at && until > at) {
        backlog += 1;
        if (from < oldest) oldest = from;
      }
    }
    const sorted = (latencies[i] ?? []).sort((a, b) => a - b);
    points.push({
      start: new Date(start + i * MINUTE_MS).toISOString(),
      backlog,
      oldestPendingSeconds: backlog > 0 ? Math.round((at - oldest) / 1000) : null,
      succeeded: succeeded[i] ?? 0,
      failed: failed[i] ?? 0,
      quoteP50Ms: percentile(sorted, 50),
      quoteP99Ms: percentile(sorted, 99),
    });
  }
  return { points, truncated };
}

/** The health page's module: four small uPlot charts from the page's JSON data block (the table has the same figures). */
export const HEALTH_JS = `import { drawCharts } from './charts.js';
const data = document.getElementById('health-data');
const host = document.getElementById('health-chart');
if (data && host) {
  const points = JSON.parse(data.textContent);
  const labels = JSON.parse(host.getAttribute('data-labels'));
  const x = points.map((p) => Date.parse(p.start) / 1000);
  const line = (label, stroke) => ({ label, stroke, width: 2 });
  drawCharts(host, labels, x, [
    { title: labels.backlog, height: 170, series: [line(labels.backlog, '#2563eb')], values: [points.map((p) => p.backlog)] },
    { title: labels.oldest, height: 170, series: [line(labels.oldest, '#d97706')], values: [points.map((p) => p.oldestPendingSeconds)] },
    { title: labels.deliveries, height: 170, series: [line(labels.succeeded, '#16a34a'), line(labels.failed, '#dc2626')],
      values: [points.map((p) => p.succeeded / 60), points.map((p) => p.failed / 60)] },
    { title: labels.quotes, height: 170, unit: 'ms', series: [line('p50', '#2563eb'), line('p99', '#d97706')],
      values: [points.map((p) => p.quoteP50Ms), points.map((p) => p.quoteP99Ms)] },
  ]);
}
`;
