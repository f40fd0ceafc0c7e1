import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
  QUOTE_MAX_SKU_LENGTH,
  QUOTE_RULES,
  QUOTE_TIMEOUT_MS,
  type QuoteOutcome,
  type QuoteRequest,
  type QuoteRequestItem,
} from '@feira/contract';
import { callSellerQuote, checkQuoteUrl, createOutboundAgent, type QuoteCallResult } from '@feira/platform';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';

// `feira quote-check <url>` (issue 7): calls a seller's quote endpoint exactly
// as the platform does — the platform's own caller, with its 1.0 s deadline,
// 1 MiB cap and the contract's rule set (spec-notes Q3/Q4) — over a set of
// generated requests, and reports each rule as passed or failed. Exit code 1 on
// any failure, so a seller's CI can run it. Only a rule of the interface fails
// (and an endpoint that never quotes at all); advice, such as how an unknown
// zipcode is answered, is a WARN that leaves the exit code alone (issue 19 §6).

interface QuoteCheckOptions {
  zipcode: string;
  sku: string[];
  invalidZipcode: string;
  distributionCenter: string[];
  repeat: number;
  ca?: string;
  json?: boolean;
}

/** What the demo seller of `feira start` serves, so a bare `feira quote-check <demo url>` passes. */
const DEFAULT_ZIPCODE = '20040002';
const DEFAULT_SKUS = ['CAM-AZUL-M', 'CANECA-100'];

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
    const exercised = id.startsWith('response.') ? answered200 : id.startsWith('error.') ? answered400 : true;
    const status: 'passed' | 'failed' | 'not_exercised' = failures.length > 0 ? 'failed' : exercised ? 'passed' : 'not_exercised';
    return { id, description: describeRule(id), status, failures };
  });
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const outcomes: Partial<Record<QuoteOutcome, number>> = {};
  for (const r of results) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  return {
    url: displayUrl(url),
    passed: rules.every((r) => r.status !== 'failed'),
    rules,
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

function printReport(report: QuoteCheckReport): void {
  const mark = { passed: 'PASS', failed: 'FAIL', not_exercised: 'n/a ' } as const;
  console.log(`Quote endpoint conformance: ${report.url}`);
  console.log(
    `Outcomes: ${Object.entries(report.outcomes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}\n`,
  );
  for (const rule of report.rules) {
    console.log(`${mark[rule.status]}  ${rule.id.padEnd(34)} ${rule.description}`);
    for (const failure of rule.failures.slice(0, 3)) {
      const detail = (failure.detail ?? '').split('\n').find((line) => line.startsWith(`${rule.id}:`)) ?? failure.detail ?? '';
      console.log(`        ${failure.case}: ${detail}`);
    }
    if (rule.failures.length > 3) console.log(`        … and ${rule.failures.length - 3} more`);
  }
  for (const advice of report.advice) {
    if (advice.status === 'warn') console.log(`WARN  ${advice.id.padEnd(34)} ${advice.description} (${advice.cases.join(', ')})`);
  }
  const l = report.latency;
  const within = l.maxMs < l.deadlineMs;
  console.log(
    `\nLatency over ${l.samples} calls: p50 ${l.p50Ms} ms, p90 ${l.p90Ms} ms, p99 ${l.p99Ms} ms, max ${l.maxMs} ms ` +
      `(deadline ${l.deadlineMs} ms: ${within ? 'every call within it' : 'some calls missed it'})`,
  );
  console.log(report.passed ? '\nResult: PASS' : '\nResult: FAIL');
}

const positiveInteger = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new InvalidArgumentError('must be an integer from 0 to 10000');
  return n;
};
const zipcode = (value: string): string => {
  if (!/^[0-9]{8}$/.test(value)) throw new InvalidArgumentError('must be 8 digits (spec "Shipping quote request")');
  return value;
};
const sku = (value: string, previous: string[] | undefined): string[] => {
  if (value.length < 1 || value.length > QUOTE_MAX_SKU_LENGTH)
    throw new InvalidArgumentError(`must have 1 to ${QUOTE_MAX_SKU_LENGTH} characters`);
  return [...(previous ?? []), value];
};

export function register(program: Command): void {
  program
    .command('quote-check')
    .description("Call a seller's quote endpoint as the platform would and report each spec rule as passed or failed")
    .argument('<url>', 'the quote URL exactly as configured on the platform (query string included)')
    .option('--zipcode <zipcode>', 'destination zipcode the seller serves', zipcode, DEFAULT_ZIPCODE)
    .option(
      '--sku <sku>',
      `a SKU the seller knows (repeat for several; default ${DEFAULT_SKUS.join(', ')}: the demo seller's)`,
      sku,
    )
    .option('--invalid-zipcode <zipcode>', 'a zipcode the seller must reject', zipcode, '00000000')
    .option(
      '--distribution-center <id>',
      "the seller's distribution-centre id (repeat; with two or more, origin is required)",
      (v, p: string[] = []) => [...p, v],
    )
    .option('--repeat <n>', 'extra calls of the one-item request for latency percentiles', positiveInteger, 20)
    .option('--ca <pem>', "PEM file of CA certificates to trust for the endpoint's HTTPS (a local CA, mkcert)")
    .option('--json', 'print the report as JSON (for machines)')
    .action(async (url: string, raw: Partial<QuoteCheckOptions>) => {
      const options: QuoteCheckOptions = {
        zipcode: raw.zipcode ?? DEFAULT_ZIPCODE,
        sku: raw.sku && raw.sku.length > 0 ? raw.sku : DEFAULT_SKUS,
        invalidZipcode: raw.invalidZipcode ?? '00000000',
        distributionCenter: raw.distributionCenter ?? [],
        repeat: raw.repeat ?? 20,
        json: raw.json,
      };
      let target: Awaited<ReturnType<typeof checkQuoteUrl>>;
      try {
        // Sandbox policy: local development may use http://, ports and loopback (spec-notes Q1).
        target = await checkQuoteUrl(url, 'sandbox');
      } catch (error) {
        const detail = (error as { details?: Array<{ message: string }> }).details?.[0]?.message ?? 'is not a valid quote URL';
        console.error(`feira quote-check: the URL ${detail}`);
        process.exitCode = 2;
        return;
      }
      let ca: string | undefined;
      if (raw.ca) {
        try {
          ca = readFileSync(raw.ca, 'utf8');
        } catch {
          console.error(`feira quote-check: --ca: cannot read ${raw.ca}`);
          process.exitCode = 2;
          return;
        }
        if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
          console.error(`feira quote-check: --ca: ${raw.ca} holds no PEM certificate`);
          process.exitCode = 2;
          return;
        }
      }
      const agent = createOutboundAgent({ policy: 'sandbox', ...(ca ? { ca } : {}) });
      const cases = buildCases(options);
      const bar = new SingleBar({ format: 'quote-check {bar} {value}/{total} {case}', stream: process.stderr, hideCursor: true });
      if (!options.json) bar.start(cases.length, 0, { case: '' });
      const results: CaseResult[] = [];
      const started = performance.now();
      try {
        for (const quoteCase of cases) {
          if (!options.json) bar.update(results.length, { case: quoteCase.name });
          const result = await callSellerQuote(agent, target, quoteCase.request, {
            distributionCenterIds: options.distributionCenter,
          });
          results.push({
            name: quoteCase.name,
            outcome: result.outcome,
            httpStatus: result.httpStatus,
            latencyMs: result.latencyMs,
            detail: result.detail,
            failedRules: judge(result),
            advice: adviceFor(quoteCase, result),
          });
        }
      } finally {
        if (!options.json) {
          bar.update(results.length, { case: `done in ${Math.round(performance.now() - started)} ms` });
          bar.stop();
        }
        await agent.close();
      }
      const report = buildReport(url, results);
      if (options.json) console.log(JSON.stringify(report, null, 2));
      else printReport(report);
      process.exitCode = report.passed ? 0 : 1;
    });
}
