import { QUOTE_OUTCOMES } from '@feira/contract';
import { Counter, Histogram, type Registry } from 'prom-client';

export interface QuoteMetrics {
  /** Quote calls by outcome (spec-notes Q7). */
  calls: Counter<'outcome'>;
  /** Seller round-trip time by outcome; the 1.0 s bucket edge is the deadline. */
  latency: Histogram<'outcome'>;
  /** Calls cut off at the deadline (also in `calls{outcome="timeout"}`, kept apart for alerting). */
  timeouts: Counter;
}

function getOrCreate<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** The quote metrics of a registry (served at /metrics); created once per registry, no global state. */
export function quoteMetrics(registry: Registry): QuoteMetrics {
  const metrics: QuoteMetrics = {
    calls: getOrCreate(
      registry,
      'feira_quote_calls_total',
      () =>
        new Counter({
          name: 'feira_quote_calls_total',
          help: 'Calls to seller quote endpoints by outcome (ok, timeout, http_error, invalid_response or the seller error code)',
          labelNames: ['outcome'],
          registers: [registry],
        }),
    ),
    latency: getOrCreate(
      registry,
      'feira_quote_call_duration_seconds',
      () =>
        new Histogram({
          name: 'feira_quote_call_duration_seconds',
          help: 'Duration of calls to seller quote endpoints, request sent to answer read or cut off',
          labelNames: ['outcome'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5],
          registers: [registry],
        }),
    ),
    timeouts: getOrCreate(
      registry,
      'feira_quote_timeouts_total',
      () =>
        new Counter({
          name: 'feira_quote_timeouts_total',
          help: 'Quote calls cut off at the 1.0 s deadline',
          registers: [registry],
        }),
    ),
  };
  // Every outcome appears from the start, so a dashboard can graph zero.
  for (const outcome of QUOTE_OUTCOMES) metrics.calls.inc({ outcome }, 0);
  return metrics;
}
