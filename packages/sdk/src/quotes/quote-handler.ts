import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkQuoteErrorBody,
  checkQuoteRequest,
  checkQuoteResponse,
  type QuoteErrorBody,
  type QuoteRequest,
  type QuoteResponse,
  type QuoteViolation,
} from '@feira/contract';
import { BodyTooLargeError, DEFAULT_MAX_BODY_BYTES, readRawBody } from '../http/read-raw-body.js';
import { QuoteErrorAnswer, quoteErrors } from './quote-error-answer.js';

/**
 * SDK default budget: 800 ms leaves 200 ms of the platform's 1.0 s deadline
 * (spec "Limits", spec-notes Q3) for the network and for sending the answer.
 *
 * @example
 * ```ts
 * createQuoteHandler(quote, { budgetMs: DEFAULT_QUOTE_BUDGET_MS - 100 });
 * ```
 */
export const DEFAULT_QUOTE_BUDGET_MS = 800;

/**
 * Your quote logic: answer a valid request with a response, or with one of
 * `quoteErrors` (returned or thrown). `signal` aborts when the budget runs out,
 * so you can stop calling a slow carrier.
 *
 * @example
 * ```ts
 * const quote: QuoteFunction = async (request, { signal }) => {
 *   const price = await carrier.price(request.zipcode, { signal });
 *   return singlePackageQuote(request, [{ id: 'std', name: 'Standard', type: 'conventional', price, delivery_days: 4 }]);
 * };
 * ```
 */
export type QuoteFunction = (
  request: QuoteRequest,
  context: { signal: AbortSignal },
) => QuoteResponse | QuoteErrorAnswer | Promise<QuoteResponse | QuoteErrorAnswer>;

/**
 * Options of `createQuoteHandler`.
 *
 * @example
 * ```ts
 * const options: QuoteHandlerOptions = { budgetMs: 700, distributionCenterIds: ['dc-sp', 'dc-rj'] };
 * ```
 */
export interface QuoteHandlerOptions {
  /** Time your function has to answer; then the handler answers `delivery_not_available`. Default 800 ms. */
  budgetMs?: number;
  /**
   * Your distribution-centre ids, as configured on the platform. With two or
   * more, every option must carry one of them as `origin` (spec, v2.0).
   */
  distributionCenterIds?: readonly string[];
  /**
   * Called when your function's answer breaks the spec; the handler then answers
   * 500 instead of sending it. Default: `console.error` with each violation.
   */
  onInvalidAnswer?: (violations: QuoteViolation[], request: QuoteRequest) => void;
  /** Called when your function throws something other than a quote error (the handler answers 500). */
  onError?: (error: unknown, request: QuoteRequest) => void;
  /** Called when the budget ran out before your function answered. */
  onBudgetExceeded?: (request: QuoteRequest) => void;
  /** Largest accepted request body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Resolves when `ms` have passed; must stop when `signal` aborts. Replace it in
   * tests to run the budget on a controlled clock. Default: `setTimeout`.
   */
  timer?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * An HTTP answer of the quote handler: 200 with a quote response, 400 with the
 * spec's error body, or 500 when your own code failed or answered out of spec.
 *
 * @example
 * ```ts
 * const answer: QuoteAnswer = await handler.handle(body);
 * if (answer.status !== 200) console.log(answer.body);
 * ```
 */
export type QuoteAnswer =
  | { status: 200; body: QuoteResponse }
  | { status: 400; body: QuoteErrorBody }
  | { status: 413 | 500; body: { message: string; code: string; violations?: QuoteViolation[] } };

/**
 * A quote endpoint. Call it as a `node:http` or Express handler, or pass the
 * body you hold to `handle()`.
 *
 * @example
 * ```ts
 * createServer(handler).listen(3000);          // node:http
 * app.post('/quote', handler);                 // Express, with or without express.json()
 * const answer = await handler.handle(rawBody); // anything else
 * ```
 */
export interface QuoteHandler {
  (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void>;
  /** Answers one request body: the raw bytes, a string, or already-parsed JSON. */
  handle(body: unknown): Promise<QuoteAnswer>;
}

const defaultTimer = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timeout = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => clearTimeout(timeout), { once: true });
  });

const BUDGET_EXCEEDED = Symbol('budget exceeded');

function badRequest(violations: QuoteViolation[]): QuoteAnswer {
  // The most specific code (spec "Errors / Shipping quote"): a malformed zipcode is `invalid_zipcode`.
  if (violations.every((v) => v.rule === 'request.zipcode')) return { status: 400, body: quoteErrors.invalidZipcode().body };
  // No spec code fits a malformed request: it never comes from the platform, so the
  // answer is for the developer reading it, in the spec's error body shape.
  return {
    status: 400,
    body: { message: `Invalid quote request: ${violations.map((v) => v.message).join('; ')}`, code: 'invalid_request' },
  };
}

function parseBody(body: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return { ok: true, value: body };
  try {
    return { ok: true, value: JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/**
 * Builds a seller quote endpoint (spec "Seller-implemented shipping-quote
 * endpoint") around your function. It validates the incoming request with the
 * contract's rule set (bad request → 400 in the spec's error body), validates
 * your answer with the same rules the platform applies (so you find a bug in
 * development, not at checkout), and answers `delivery_not_available` when your
 * function has not answered within the budget, instead of letting the
 * platform's 1.0 s deadline expire.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createQuoteHandler, quoteErrors, singlePackageQuote } from '@feira/sdk';
 *
 * const handler = createQuoteHandler(async (request) => {
 *   if (!request.zipcode.startsWith('0')) return quoteErrors.deliveryNotAvailable(request);
 *   return singlePackageQuote(request, [
 *     { id: 'std', name: 'Standard', type: 'conventional', price: 19.9, delivery_days: 5 },
 *   ]);
 * });
 * createServer(handler).listen(3000);
 * ```
 */
export function createQuoteHandler(quote: QuoteFunction, options: QuoteHandlerOptions = {}): QuoteHandler {
  const budgetMs = options.budgetMs ?? DEFAULT_QUOTE_BUDGET_MS;
  const timer = options.timer ?? defaultTimer;
  const context = { distributionCenterIds: options.distributionCenterIds ?? [] };
  const onInvalidAnswer =
    options.onInvalidAnswer ??
    ((violations: QuoteViolation[]) => {
      console.error(
        `feira quote handler: the answer breaks the spec and was not sent:\n${violations.map((v) => `  [${v.rule}] ${v.message}`).join('\n')}`,
      );
    });

  async function handle(body: unknown): Promise<QuoteAnswer> {
    const parsed = parseBody(body);
    if (!parsed.ok)
      return { status: 400, body: { message: 'Invalid quote request: the body is not JSON', code: 'invalid_request' } };
    const violations = checkQuoteRequest(parsed.value);
    if (violations.length > 0) return badRequest(violations);
    const request = parsed.value as QuoteRequest;

    const stopTimer = new AbortController();
    const abortSeller = new AbortController();
    let outcome: { value: unknown } | { error: unknown } | typeof BUDGET_EXCEEDED;
    try {
      outcome = await Promise.race([
        Promise.resolve()
          .then(() => quote(request, { signal: abortSeller.signal }))
          .then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          ),
        timer(budgetMs, stopTimer.signal).then((): typeof BUDGET_EXCEEDED => BUDGET_EXCEEDED),
      ]);
    } finally {
      stopTimer.abort();
    }

    if (outcome === BUDGET_EXCEEDED) {
      abortSeller.abort();
      options.onBudgetExceeded?.(request);
      return { status: 400, body: quoteErrors.deliveryNotAvailable(request).body };
    }
    const answer = 'value' in outcome ? outcome.value : outcome.error;
    if (answer instanceof QuoteErrorAnswer) {
      const checked = checkQuoteErrorBody(answer.body);
      if (checked.ok) return { status: 400, body: answer.body };
      onInvalidAnswer(checked.violations, request);
      return {
        status: 500,
        body: { message: 'The quote error breaks the spec', code: 'invalid_response', violations: checked.violations },
      };
    }
    if ('error' in outcome) {
      options.onError?.(outcome.error, request);
      return { status: 500, body: { message: 'The quote function failed', code: 'internal_error' } };
    }
    const answerViolations = checkQuoteResponse(request, answer, context);
    if (answerViolations.length > 0) {
      onInvalidAnswer(answerViolations, request);
      return {
        status: 500,
        body: {
          message: 'The quote answer breaks the spec and was not sent',
          code: 'invalid_response',
          violations: answerViolations,
        },
      };
    }
    return { status: 200, body: answer as QuoteResponse };
  }

  const handler = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> => {
    let answer: QuoteAnswer;
    try {
      // Express with a body parser has already read the stream: use what it parsed.
      const body = req.body !== undefined ? req.body : await readRawBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
      answer = await handle(body);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      answer = { status: 413, body: { message: 'The request body is too large', code: 'invalid_request' } };
    }
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
  return Object.assign(handler, { handle });
}
