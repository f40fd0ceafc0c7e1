import { randomUUID } from 'node:crypto';
import {
  QUOTE_MAX_SKU_LENGTH,
  QUOTE_RULES,
  QUOTE_TIMEOUT_MS,
  type QuoteOutcome,
  type QuoteRequest,
  type QuoteRequestItem,
} from '@feira/contract';
import type { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import { callSellerQuote, type QuoteCallResult } from './quote-caller.js';
import { recordQuoteCall } from './quote-log/quote-log.js';
import type { QuoteLogWriter } from './quote-log/quote-log-writer.js';
import { quoteMetrics } from './quote-metrics.js';
import type { QuoteTarget } from './quote-url.js';

/**
 * The quote endpoint conformance check (`feira quote-check`, the console's
 * "Test my endpoint"): calls a seller's
 * quote endpoint exactly as the platform does — the platform's own caller,
 * with its 1.0 s deadline, 1 MiB cap and the contract's rule set (spec-notes
 * Q3/Q4) — over a set of generated requests, and judges each rule as passed,
 * failed or not exercised. Only a rule of the interface fails (and an
 * endpoint that never quotes at all); advice, such as how an unknown zipcode
 * is answered, is a WARN. `feira quote-check` prints it; the console's
 * "Test my endpoint" shows it.
 */

export interface QuoteCheckOptions {
  zipcode: string;
  sku: string[];
  invalidZipcode: string;
  distributionCenter: string[];
  repeat: number;
  /** Keep this many characters of each answer's body in its case, to show beside a failure (D83). */
  keepBody?: number;
  /** Told of every call as it ends (the console logs them in the quote log, marked as tests). */
  record?: (request: QuoteRequest, result: QuoteCallResult) => void;
}

/**
 * Logs each call of a store's Test my endpoint in the quote log as the
 * storefront's are, with purpose `test` (D83): the quote chart and log then
 * show what the test did, marked as such.
 */
export function quoteTestRecorder(
  services: { quoteLog: QuoteLogWriter; clock: Clock; random: Random; metrics: Registry },
  tenantId: string,
): (request: QuoteRequest, result: QuoteCallResult) => void {
  const deps = {
    quoteLog: services.quoteLog,
    clock: services.clock,
    random: services.random,
    metrics: quoteMetrics(services.metrics),
  };
  return (request, result) => {
    recordQuoteCall(deps, { tenantId, sessionId: request.session_id, purpose: 'test', result });
  };
}

export { DEFAULT_SKUS, DEFAULT_ZIPCODE } from './quote-check-defaults.js';

/** One generated request and what a conforming seller does with it. */
interface QuoteCase {
  name: string;
  request: QuoteRequest;
  /** `answer`: a valid 200 or a valid 400 error. `reject-zipcode`: a valid 400 error. */
  expect: 'answer' | 'reject-zipcode';
}

/** Rules checked on top of the contract's QUOTE_RULES: the ones about the exchange itself. */
const EXCHANGE_RULES = {
  'exchange.deadline': `A full answer arrives within ${QUOTE_TIMEOUT_MS} ms (spec "Limits": quote timeout 1.0 s, no retry)`,
  'exchange.status':
    'Every answer is HTTP 200 with a quote or HTTP 400 with a quote error body (spec "Seller-implemented endpoint")',
  'exchange.quotes-something':
    'At least one of the requests sent is answered with a quote (HTTP 200 with delivery options); an endpoint that refuses everything cannot serve a store',
} as const;

/**
 * Advice: what a good seller does where the interface leaves it free. A WARN,
 * never a failure: a seller may quote a zipcode it cannot check, for example.
 */
const ADVICE = {
  'advice.unknown-zipcode':
    'A zipcode that does not exist is best answered 400 invalid_zipcode (or delivery_not_available), so the shopper is told at once',
} as const;
type AdviceId = keyof typeof ADVICE;

type RuleId = keyof typeof EXCHANGE_RULES | keyof typeof QUOTE_RULES;

/** The rules a seller's answers are judged by: request rules are the platform's side, not the seller's. */
const CHECKED_RULES: RuleId[] = [
  ...(Object.keys(EXCHANGE_RULES) as RuleId[]),
  ...(Object.keys(QUOTE_RULES) as RuleId[]).filter((id) => !id.startsWith('request.')),
];

const describeRule = (id: RuleId): string =>
  id in EXCHANGE_RULES ? EXCHANGE_RULES[id as keyof typeof EXCHANGE_RULES] : QUOTE_RULES[id as keyof typeof QUOTE_RULES];

function item(sku: string, quantity: number, overrides: Partial<QuoteRequestItem> = {}): QuoteRequestItem {
  return {
    sku,
    quantity,
    price: 59.9,
    currency: 'BRL',
    dimensions: { depth: 0.3, height: 0.12, width: 0.25, weight: 0.8 },
    ...overrides,
  };
}

const longSku = (sku: string) => (sku + '-' + 'L'.repeat(QUOTE_MAX_SKU_LENGTH)).slice(0, QUOTE_MAX_SKU_LENGTH);

/** The generated requests, edge cases included. Each is a valid request (the platform never sends another). */
function buildCases(options: QuoteCheckOptions): QuoteCase[] {
  const [first = 'FEIRA-SKU-1'] = options.sku;
  const request = (items: QuoteRequestItem[], zipcode = options.zipcode): QuoteRequest => ({
    session_id: randomUUID(),
    zipcode,
    items,
  });
  const cases: QuoteCase[] = [
    { name: 'one item', request: request([item(first, 1)]), expect: 'answer' },
    { name: 'every given SKU', request: request(options.sku.map((sku, i) => item(sku, i + 1))), expect: 'answer' },
    {
      name: 'many items (60 lines)',
      request: request(
        Array.from({ length: 60 }, (_, i) => item(i < options.sku.length ? options.sku[i]! : `${first}-V${i}`, 1 + (i % 3))),
      ),
      expect: 'answer',
    },
    { name: `SKU of ${QUOTE_MAX_SKU_LENGTH} characters`, request: request([item(longSku(first), 1)]), expect: 'answer' },
    { name: 'large quantity (999)', request: request([item(first, 999)]), expect: 'answer' },
    {
      name: 'tiny, light item and a heavy, bulky one',
      request: request([
        item(first, 1, { price: 0.01, dimensions: { depth: 0.01, height: 0.01, width: 0.01, weight: 0.001 } }),
        item(`${first}-BULKY`, 1, { price: 8999.99, dimensions: { depth: 2.1, height: 1.8, width: 0.9, weight: 120 } }),
      ]),
      expect: 'answer',
    },
    {
      name: `zipcode that does not exist (${options.invalidZipcode})`,
      request: request([item(first, 1)], options.invalidZipcode),
      expect: 'reject-zipcode',
    },
  ];
  for (let i = 0; i < options.repeat; i++) {
    cases.push({ name: `latency sample ${i + 1}`, request: request([item(first, 1)]), expect: 'answer' });
  }
  return cases;
}

interface CaseResult {
  name: string;
  /** The request sent (a failure is shown with it). */
  request: QuoteRequest;
  /** The start of the answer's body, when the options kept it. */
  responseBody: string | null;
  outcome: QuoteOutcome;
  httpStatus: number | null;
  latencyMs: number;
  detail: string | null;
  failedRules: RuleId[];
  advice: AdviceId[];
}

/** The platform's caller reports violations as `<rule id>: <message>` lines; map them back to rules. */
function rulesIn(detail: string | null): RuleId[] {
  const found = new Set<RuleId>();
  for (const line of (detail ?? '').split('\n')) {
    const id = line.slice(0, line.indexOf(':'));
    if (Object.hasOwn(QUOTE_RULES, id)) found.add(id as RuleId);
  }
  return [...found];
}

function judge(result: QuoteCallResult): RuleId[] {
  const failed = new Set<RuleId>();
  switch (result.outcome) {
    case 'timeout':
      failed.add('exchange.deadline');
      break;
    case 'http_error': {
      const rules = rulesIn(result.detail);
      if (rules.length > 0) for (const rule of rules) failed.add(rule);
      else failed.add('exchange.status');
      break;
    }
    case 'invalid_response': {
      const rules = rulesIn(result.detail);
      for (const rule of rules.length > 0 ? rules : (['response.schema'] as RuleId[])) failed.add(rule);
      break;
    }
  }
  return [...failed];
}

function adviceFor(quoteCase: QuoteCase, result: QuoteCallResult): AdviceId[] {
  // Quoting a zipcode that does not exist is allowed (a seller may not check zipcodes); rejecting it is better.
  return quoteCase.expect === 'reject-zipcode' && result.outcome === 'ok' ? ['advice.unknown-zipcode'] : [];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

/** The URL without its query: a seller may put a token there (spec "Authentication" rule 12). */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
}

export interface QuoteCheckReport {
  url: string;
  passed: boolean;
  rules: Array<{
    id: RuleId;
    description: string;
    status: 'passed' | 'failed' | 'not_exercised';
    failures: Array<{ case: string; detail: string | null }>;
  }>;
  /** WARN: not a rule of the interface, so never a failure. */
  advice: Array<{ id: AdviceId; description: string; status: 'ok' | 'warn'; cases: string[] }>;
  latency: { samples: number; p50Ms: number; p90Ms: number; p99Ms: number; maxMs: number; deadlineMs: number };
  cases: CaseResult[];
  outcomes: Partial<Record<QuoteOutcome, number>>;
}

/** The response rules judged on the answer's shape alone; every other response rule needs a quote with options. */
const SHAPE_RULES: readonly RuleId[] = ['response.not-json', 'response.too-large', 'response.schema'];
const NEEDS_A_QUOTE = (id: RuleId) => id.startsWith('response.') && !SHAPE_RULES.includes(id);
const STATUS_ORDER = { failed: 0, passed: 1, not_exercised: 2 } as const;

function buildReport(url: string, results: CaseResult[]): QuoteCheckReport {
  const answered200 = results.some((r) => r.httpStatus === 200);
  const answered400 = results.some((r) => r.httpStatus === 400);
  const quotedOnce = results.some((r) => r.outcome === 'ok');
  const rules = CHECKED_RULES.map((id) => {
    const failures = results.filter((r) => r.failedRules.includes(id)).map((r) => ({ case: r.name, detail: r.detail }));
    if (id === 'exchange.quotes-something' && !quotedOnce) {
      failures.push({
        case: 'every request',
        detail: `no request got a quote (outcomes: ${[...new Set(results.map((r) => r.outcome))].join(', ')})`,
      });
    }
    // A rule about delivery options is only exercised by an answer that has some: an endpoint that never
    // quotes leaves them "not exercised", never "passed" (D83).
    const exercised = NEEDS_A_QUOTE(id)
      ? quotedOnce
      : id.startsWith('response.')
        ? answered200
        : id.startsWith('error.')
          ? answered400
          : true;
    const status: 'passed' | 'failed' | 'not_exercised' = failures.length > 0 ? 'failed' : exercised ? 'passed' : 'not_exercised';
    return { id, description: describeRule(id), status, failures };
  });
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const outcomes: Partial<Record<QuoteOutcome, number>> = {};
  for (const r of results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  return {
    url: displayUrl(url),
    passed: rules.every((r) => r.status !== 'failed'),
    // Failures first, then what passed, then what was not exercised (CHECKED_RULES order within each).
    rules: [...rules].sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]),
    advice: (Object.keys(ADVICE) as AdviceId[]).map((id) => {
      const cases = results.filter((r) => r.advice.includes(id)).map((r) => r.name);
      return { id, description: ADVICE[id], status: cases.length > 0 ? ('warn' as const) : ('ok' as const), cases };
    }),
    latency: {
      samples: latencies.length,
      p50Ms: percentile(latencies, 50),
      p90Ms: percentile(latencies, 90),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.at(-1) ?? 0,
      deadlineMs: QUOTE_TIMEOUT_MS,
    },
    cases: results,
    outcomes,
  };
}

/**
 * Runs every case against the endpoint one after the other (a seller's
 * latency is measured alone) and returns the report. `onCase` is told before
 * each call, for a progress bar.
 */
export async function runQuoteCheck(
  dispatcher: Dispatcher,
  target: QuoteTarget,
  url: string,
  options: QuoteCheckOptions,
  onCase: (index: number, total: number, name: string) => void = () => {},
): Promise<QuoteCheckReport> {
  const cases = buildCases(options);
  const results: CaseResult[] = [];
  for (const quoteCase of cases) {
    onCase(results.length, cases.length, quoteCase.name);
    const result = await callSellerQuote(dispatcher, target, quoteCase.request, {
      distributionCenterIds: options.distributionCenter,
      ...(options.keepBody ? { keepBody: options.keepBody } : {}),
    });
    options.record?.(quoteCase.request, result);
    results.push({
      name: quoteCase.name,
      request: quoteCase.request,
      responseBody: result.responseBody ?? null,
      outcome: result.outcome,
      httpStatus: result.httpStatus,
      latencyMs: result.latencyMs,
      detail: result.detail,
      failedRules: judge(result),
      advice: adviceFor(quoteCase, result),
    });
  }
  onCase(results.length, cases.length, '');
  return buildReport(url, results);
}
