// Load generator child: an undici loop in its own process, so it never shares
// an event loop with what it measures. Latency is taken with hrtime in
// microseconds (autocannon's whole-millisecond histogram is too coarse for the
// sub-millisecond targets of BENCHMARKS.md).
import { Pool } from 'undici';
import { serveChild } from './child-protocol.js';
import type { LoadPlan, LoadResult, RequestSpec, Workload } from './load-plan.js';
import { LatencyRecorder, round } from './stats.js';

const nowMs = () => performance.now();

async function workloadOf(plan: LoadPlan): Promise<Workload> {
  if (plan.workload) {
    const mod = (await import(plan.workload.module)) as { createWorkload(options: unknown): Workload | Promise<Workload> };
    return mod.createWorkload(plan.workload.options);
  }
  const requests = plan.requests ?? [];
  if (requests.length === 0) throw new Error('a load plan needs requests or a workload');
  let i = 0;
  return { next: () => requests[i++ % requests.length] as RequestSpec };
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  const workload = await workloadOf(plan);
  const pool = new Pool(plan.origin, {
    connections: plan.connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    ...(plan.ca ? { connect: { ca: plan.ca } } : {}),
  });
  const recorder = new LatencyRecorder();
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  let requests = 0;
  let late = 0;
  let firstError: string | null = null;
  const isOk = (status: number) => (plan.okStatuses ? plan.okStatuses.includes(status) : status >= 200 && status < 300);

  // Open every connection (and TLS session) before the clock starts: a handshake storm is not what is measured.
  await Promise.all(
    Array.from({ length: Math.min(plan.connections, 64) }, async (_, connection) => {
      const spec = await workload.next(connection);
      try {
        const response = await pool.request({ method: spec.method, path: spec.path, headers: spec.headers, body: spec.body });
        workload.onResponse?.(connection, response.statusCode, await response.body.text());
      } catch {
        // Counted in the run proper if it persists.
      }
    }),
  );

  const field = plan.sampleField;
  const samples: Array<[string, number]> | null = field ? [] : null;
  const arrivedAt: Array<[string, number]> | null = field ? [] : null;
  const sampledValue = (text: string): string => {
    try {
      const value = (JSON.parse(text) as Record<string, unknown>)[field as string];
      return typeof value === 'string' ? value : '';
    } catch {
      return '';
    }
  };

  const started = nowMs();
  const measureFrom = started + plan.warmupMs;
  const endAt = measureFrom + plan.durationMs;

  const once = async (connection: number) => {
    const spec = await workload.next(connection);
    const t0 = nowMs();
    let status = 0;
    let text = '';
    try {
      const response = await pool.request({
        method: spec.method,
        path: spec.path,
        headers: spec.headers,
        body: spec.body,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      if (!firstError) firstError = error instanceof Error ? error.message : String(error);
    }
    const t1 = nowMs();
    // Every acknowledged write, warm-up and tail included: a scenario joins them with later events by id.
    if (arrivedAt && isOk(status)) arrivedAt.push([sampledValue(text), Date.now()]);
    workload.onResponse?.(connection, status, text);
    if (t0 < measureFrom || t1 > endAt) return;
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    if (isOk(status)) {
      requests += 1;
      recorder.record((t1 - t0) * 1000);
      if (samples) samples.push([sampledValue(text), Math.round((t1 - t0) * 1000)]);
    } else {
      errors += 1;
      if (!firstError) firstError = `HTTP ${status}: ${text.slice(0, 200)}`;
    }
  };

  if (plan.ratePerSecond) {
    const rate = plan.ratePerSecond;
    let sent = 0;
    let inFlight = 0;
    const inflightCap = plan.connections;
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const now = nowMs();
        if (now >= endAt) {
          clearInterval(tick);
          const drain = setInterval(() => {
            if (inFlight === 0) {
              clearInterval(drain);
              resolve();
            }
          }, 5);
          return;
        }
        const due = Math.floor(((now - started) * rate) / 1000);
        while (sent < due) {
          sent += 1;
          if (inFlight >= inflightCap) {
            if (now >= measureFrom) late += 1;
            continue;
          }
          inFlight += 1;
          once(sent % inflightCap).finally(() => {
            inFlight -= 1;
          });
        }
      }, 1);
    });
  } else {
    await Promise.all(
      Array.from({ length: plan.connections }, async (_, connection) => {
        while (nowMs() < endAt) await once(connection);
      }),
    );
  }
  await pool.close();
  return {
    requests,
    errors,
    statusCounts,
    firstError,
    measuredMs: plan.durationMs,
    requestsPerSecond: round((requests * 1000) / plan.durationMs, 1),
    late,
    latency: recorder.summary(),
    ...(samples ? { samples } : {}),
    ...(arrivedAt ? { arrivedAt } : {}),
  };
}

serveChild({}, { run: (args) => run(args as LoadPlan) });
