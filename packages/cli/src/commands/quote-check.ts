import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { QUOTE_MAX_SKU_LENGTH } from '@feira/contract';
import type { QuoteCheckOptions, QuoteCheckReport } from '@feira/platform';
import { DEFAULT_SKUS, DEFAULT_ZIPCODE } from '@feira/platform/cli';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';

// `feira quote-check <url>`: the platform's conformance check
// (runQuoteCheck, the same one the console's "Test my endpoint" runs) against
// a URL, printed as PASS/FAIL/WARN lines or JSON. Exit code 1 on any failure,
// so a seller's CI can run it (advice, a WARN line, never fails it).

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
    .action(async (url: string, raw: Partial<QuoteCheckOptions> & { ca?: string; json?: boolean }) => {
      const options: QuoteCheckOptions = {
        zipcode: raw.zipcode ?? DEFAULT_ZIPCODE,
        sku: raw.sku && raw.sku.length > 0 ? raw.sku : DEFAULT_SKUS,
        invalidZipcode: raw.invalidZipcode ?? '00000000',
        distributionCenter: raw.distributionCenter ?? [],
        repeat: raw.repeat ?? 20,
      };
      const { checkQuoteUrl, createOutboundAgent, runQuoteCheck } = await import('@feira/platform');
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
      const bar = new SingleBar({ format: 'quote-check {bar} {value}/{total} {case}', stream: process.stderr, hideCursor: true });
      const started = performance.now();
      let report: QuoteCheckReport;
      try {
        report = await runQuoteCheck(agent, target, url, options, (index, total, name) => {
          if (raw.json) return;
          if (index === 0 && name) bar.start(total, 0, { case: name });
          bar.update(index, { case: name || `done in ${Math.round(performance.now() - started)} ms` });
        });
      } finally {
        if (!raw.json) bar.stop();
        await agent.close();
      }
      if (raw.json) console.log(JSON.stringify(report, null, 2));
      else printReport(report);
      process.exitCode = report.passed ? 0 : 1;
    });
}
