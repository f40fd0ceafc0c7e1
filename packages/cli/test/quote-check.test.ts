import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QuoteRequest } from '@feira/contract';
import { type DemoSeller, startDemoSeller } from '@feira/platform';
import { testTls, writeTestTlsFiles } from '@feira/platform/testing';
import { createQuoteHandler, quoteErrors, singlePackageQuote } from '@feira/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

// A seller on loopback whose behaviour is chosen by the query string: the
// platform (and quote-check) call the URL exactly as configured, query included.
const STANDARD = { id: 'std', name: 'Standard', type: 'conventional', price: 19.9, delivery_days: 4 };
const conforming = createQuoteHandler((request) =>
  request.zipcode === '00000000' ? quoteErrors.invalidZipcode() : singlePackageQuote(request, [STANDARD]),
);
const acceptsAnything = createQuoteHandler((request) => singlePackageQuote(request, [STANDARD]));
const rejectsEverything = createQuoteHandler(() => quoteErrors.invalidZipcode());

function json(res: ServerResponse, status: number, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<QuoteRequest> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as QuoteRequest;
}

/**
 * Breaks a different rule on each kind of request quote-check sends, so one run
 * (one process) shows that each invalid answer is caught under its own rule.
 */
function mixedBreakage(r: QuoteRequest, res: ServerResponse) {
  const first = r.items[0]!;
  if (r.zipcode === '00000000') return json(res, 400, { message: 'Itens sem Estoque', code: 'out_of_stock' });
  if (r.items.length === 60)
    return json(res, 200, { packages: [{ items: [{ sku: first.sku, quantity: 1 }], delivery_options: [STANDARD] }] });
  if (first.sku.length === 50) return json(res, 200, singlePackageQuote(r, [{ ...STANDARD, id: 'x'.repeat(33) }]));
  if (first.quantity === 999) return json(res, 200, '<html>ok</html>');
  if (first.price === 0.01) return json(res, 500, { error: 'boom' });
  if (r.items.length === 2) return json(res, 200, singlePackageQuote(r, [STANDARD, { ...STANDARD, price: 10.005 }]));
  return json(res, 200, singlePackageQuote(r, [{ ...STANDARD, price: 0 }]));
}

/** Answers in time, except the 60-line request, which it never answers. */
function hangsOnManyItems(r: QuoteRequest, res: ServerResponse) {
  if (r.zipcode === '00000000') return json(res, 400, { message: 'Invalid zipcode', code: 'invalid_zipcode' });
  if (r.items.length < 60) json(res, 200, singlePackageQuote(r, [STANDARD]));
}

let base = '';
let demoSeller: DemoSeller;
let httpsBase = '';
const httpsSeller = createHttpsServer({ key: testTls.key, cert: testTls.cert }, (req, res) => conforming(req, res));
const tlsDir = mkdtempSync(join(tmpdir(), 'feira-quote-check-tls-'));
const caFile = writeTestTlsFiles(tlsDir).ca;
const server = createServer(async (req, res) => {
  const mode = new URL(req.url ?? '/', 'http://x').searchParams.get('mode') ?? 'conforming';
  if (mode === 'conforming') return conforming(req, res);
  if (mode === 'accepts-any-zipcode') return acceptsAnything(req, res);
  if (mode === 'rejects-everything') return rejectsEverything(req, res);
  const request = await readJson(req);
  if (mode === 'mixed') mixedBreakage(request, res);
  if (mode === 'hangs') hangsOnManyItems(request, res);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/frete?token=s3cret-token`;
  demoSeller = await startDemoSeller();
  await new Promise<void>((resolve) => httpsSeller.listen(0, '127.0.0.1', resolve));
  httpsBase = `https://127.0.0.1:${(httpsSeller.address() as AddressInfo).port}/frete`;
});
afterAll(async () => {
  rmSync(tlsDir, { recursive: true, force: true });
  await demoSeller.close();
  httpsSeller.closeAllConnections();
  httpsSeller.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(tlsDir, { recursive: true, force: true });
});

interface Report {
  url: string;
  passed: boolean;
  rules: Array<{ id: string; status: string; failures: Array<{ case: string }> }>;
  latency: { samples: number; p50Ms: number; p99Ms: number; maxMs: number; deadlineMs: number };
  cases: Array<{ name: string; outcome: string }>;
  advice: Array<{ id: string; status: string; cases: string[] }>;
}

async function check(mode: string, extra: string[] = []) {
  const run = await runCli(['quote-check', `${base}&mode=${mode}`, '--repeat', '2', '--json', ...extra]);
  return { ...run, report: JSON.parse(run.stdout) as Report };
}
const failedRules = (report: Report) => report.rules.filter((r) => r.status === 'failed').map((r) => r.id);

describe('feira quote-check (real process against a real seller on loopback)', () => {
  it('a conforming SDK seller passes every rule, exit code 0, latency within the 1.0 s deadline (spec "Limits")', async () => {
    const { code, report } = await check('conforming', ['--sku', 'ABC-1', '--sku', 'ABC-2']);
    expect(failedRules(report)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(code).toBe(0);
    expect(report.latency.samples).toBe(report.cases.length);
    expect(report.latency.maxMs).toBeLessThan(report.latency.deadlineMs);
    // Edge cases of the issue are among the requests sent.
    expect(report.cases.map((c) => c.name)).toEqual(
      expect.arrayContaining(['many items (60 lines)', 'SKU of 50 characters', 'zipcode that does not exist (00000000)']),
    );
    // The token in the query string is never printed.
    expect(report.url).not.toContain('s3cret-token');
  }, 120_000);

  it('spec-notes Q4: every kind of invalid answer the platform rejects fails its own rule, exit code 1 (same rule set as the platform)', async () => {
    const { code, report } = await check('mixed', ['--sku', 'A-1', '--sku', 'B-2']);
    expect(failedRules(report).sort()).toEqual(
      [
        'error.items-required',
        'exchange.quotes-something',
        'exchange.status',
        'response.items-match-request',
        'response.not-json',
        'response.option-id-length',
        'response.option-id-unique',
        'response.price-decimals',
        'response.price-positive',
      ].sort(),
    );
    expect(report.passed).toBe(false);
    expect(code).toBe(1);
  }, 120_000);

  it('spec "Limits" 1.0 s / spec-notes Q3: a request left unanswered fails exchange.deadline, the others pass', async () => {
    const { code, report } = await check('hangs');
    expect(failedRules(report)).toEqual(['exchange.deadline']);
    expect(report.rules.find((r) => r.id === 'exchange.deadline')?.failures.map((f) => f.case)).toEqual([
      'many items (60 lines)',
    ]);
    expect(report.cases.find((c) => c.name === 'many items (60 lines)')?.outcome).toBe('timeout');
    expect(code).toBe(1);
  }, 120_000);

  it('a conforming seller that quotes the zipcode 00000000 passes with a WARN (advice, not a rule), exit code 0', async () => {
    const { code, report } = await check('accepts-any-zipcode');
    expect(failedRules(report)).toEqual([]);
    expect(report.advice).toEqual([
      expect.objectContaining({
        id: 'advice.unknown-zipcode',
        status: 'warn',
        cases: ['zipcode that does not exist (00000000)'],
      }),
    ]);
    expect(code).toBe(0);
    const human = await runCli(['quote-check', `${base}&mode=accepts-any-zipcode`, '--repeat', '0']);
    expect(human.stdout).toMatch(/WARN\s+advice\.unknown-zipcode/);
    expect(human.stdout).toContain('Result: PASS');
    expect(human.code).toBe(0);
  }, 120_000);

  it('a seller that rejects every request (valid 400 bodies) fails exchange.quotes-something, exit code 1', async () => {
    const { code, report } = await check('rejects-everything');
    expect(failedRules(report)).toEqual(['exchange.quotes-something']);
    expect(code).toBe(1);
  }, 120_000);

  it("the sandbox's demo seller passes with no flag: the default zipcode and SKUs are ones it serves", async () => {
    const run = await runCli(['quote-check', `${demoSeller.url}/quote`, '--repeat', '1', '--json']);
    const report = JSON.parse(run.stdout) as Report;
    expect(failedRules(report)).toEqual([]);
    expect(report.advice.every((a) => a.status === 'ok')).toBe(true);
    expect(run.code).toBe(0);
  }, 120_000);

  it('--ca: an HTTPS endpoint whose CA is local passes with the CA given, and fails exchange.status without it', async () => {
    const trusted = await runCli(['quote-check', httpsBase, '--repeat', '0', '--json', '--ca', caFile]);
    expect(failedRules(JSON.parse(trusted.stdout) as Report)).toEqual([]);
    expect(trusted.code).toBe(0);
    const untrusted = await runCli(['quote-check', httpsBase, '--repeat', '0', '--json']);
    expect(failedRules(JSON.parse(untrusted.stdout) as Report)).toContain('exchange.status');
    expect(untrusted.code).toBe(1);
  }, 120_000);

  it('human output lists each rule with PASS/FAIL and the latency line; a bad zipcode option exits non-zero', async () => {
    const run = await runCli(['quote-check', `${base}&mode=mixed`, '--repeat', '1']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL\s+response\.price-positive/);
    expect(run.stdout).toMatch(/PASS\s+exchange\.deadline/);
    expect(run.stdout).toMatch(/Latency over \d+ calls: p50 [\d.]+ ms/);
    expect(run.stdout).toContain('Result: FAIL');
    const bad = await runCli(['quote-check', base, '--zipcode', '123']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('8 digits');
  }, 120_000);
});
