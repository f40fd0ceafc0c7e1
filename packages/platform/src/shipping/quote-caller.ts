import { performance } from 'node:perf_hooks';
import {
  checkQuoteErrorBody,
  checkQuoteResponse,
  QUOTE_MAX_RESPONSE_BYTES,
  QUOTE_TIMEOUT_MS,
  type QuoteOutcome,
  type QuoteRequest,
  type QuoteResponse,
  type QuoteSellerError,
  type QuoteViolation,
} from '@feira/contract';
import type { Dispatcher } from 'undici';
import type { QuoteTarget } from './quote-url.js';

/** How one call to a seller's quote endpoint ended (spec-notes Q7). */
export interface QuoteCallResult {
  outcome: QuoteOutcome;
  /** Wall time from sending the request to the end of the answer (or the cut-off). */
  latencyMs: number;
  /** The seller's HTTP status, null when no answer came. */
  httpStatus: number | null;
  /** Why the outcome is not `ok`: rule ids and messages, or the transport error; for an `ok` gateway call, what it left out. Never the URL. */
  detail: string | null;
  /** The validated answer (outcome `ok`). */
  response?: QuoteResponse;
  /** The seller's own error (outcome = its code). */
  sellerError?: QuoteSellerError;
  /** The gateway kind of a `gateway` method's call (kept in the quote log row); absent for the seller API. */
  gatewayKind?: string;
  /** The start of the answer's body as text, when the call asked for it (`keepBody`); never logged. */
  responseBody?: string;
}

export interface QuoteCallOptions {
  /** The seller's configured centres: origin rules of spec-notes Q4. */
  distributionCenterIds: readonly string[];
  /** spec-notes Q3: one deadline for connect + headers + body (default 1000 ms). */
  timeoutMs?: number;
  /** spec-notes Q3: larger bodies are refused (default 1 MiB). */
  maxResponseBytes?: number;
  /** Keep the first this-many characters of the answer's body in the result (Test my endpoint shows them; D83). */
  keepBody?: number;
  /** spec-notes Q8: a gateway call carries the store's credential (never logged). */
  authorization?: string;
  /**
   * A gateway that speaks its own API (methods/gateways/, D57): how the
   * request is written and how its answer becomes a seller-API response, which
   * is then validated exactly as a seller's. Without it, the seller-API contract.
   */
  protocol?: QuoteProtocol;
}

/** A far end's own quote API, translated to and from the seller-API contract (D57). */
export interface QuoteProtocol {
  /** The body and the headers (credential included) the far end expects. */
  encode(request: QuoteRequest): { body: string; headers: Record<string, string> };
  /**
   * A 2xx JSON answer as a seller-API quote response (validated after, as a
   * seller's), or why it cannot be one (`invalid_response`).
   */
  decode(answer: unknown, request: QuoteRequest): { response: unknown; skipped?: string } | { invalid: string };
}

const MAX_DETAIL_CHARS = 2000;

/** The same headers on every call: one object, not one per quote. */
const REQUEST_HEADERS = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  accept: 'application/json',
  'user-agent': 'feira-quote/2.0',
});

/**
 * The abort reason of every cut-off. Without one, `abort()` builds a
 * DOMException with a stack trace per call; when a silent seller's calls hit
 * the deadline together, that work delays the timers still due (spec-notes Q3).
 */
const DEADLINE_PASSED = new Error('quote deadline passed');

class BodyTooLarge extends Error {}

function describeViolations(violations: QuoteViolation[]): string {
  return violations
    .slice(0, 20)
    .map((v) => `${v.rule}: ${v.message}`)
    .join('\n')
    .slice(0, MAX_DETAIL_CHARS);
}

/** A transport failure in words an integrator can act on; never the URL (its query may hold a token). */
function describeTransportError(error: unknown): string {
  const err = error as { code?: string; cause?: { code?: string; reason?: string }; reason?: string };
  const code = err.code ?? err.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection closed by the seller before a full answer';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name does not resolve';
    case 'ERR_SSRF_REFUSED':
      return `address refused by the outbound policy (${err.reason ?? err.cause?.reason ?? 'not allowed'})`;
  }
  if (code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `TLS handshake failed (${code})`;
  return `request failed (${code ?? 'network error'})`;
}

/** Reads a body up to `limit` bytes; a longer one is cut off (the socket is dropped) and refused. */
async function readCapped(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw new BodyTooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses UTF-8 JSON; undefined when the bytes are not valid UTF-8 or not JSON. */
function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Calls a seller's quote endpoint once (spec "Seller-implemented
 * shipping-quote endpoint", "Errors / Shipping quote"; spec-notes Q3/Q4):
 * POST of the request as UTF-8 JSON through the keep-alive outbound pool, one
 * deadline for the whole exchange, no retry. When the deadline passes the
 * request is aborted (undici drops the socket), so a late answer is never read.
 * A 200 is validated with the contract's rule set; a 400 is read as the
 * seller's error body; anything else is `http_error`.
 */
export async function callSellerQuote(
  dispatcher: Dispatcher,
  target: QuoteTarget,
  request: QuoteRequest,
  options: QuoteCallOptions,
): Promise<QuoteCallResult> {
  const timeoutMs = options.timeoutMs ?? QUOTE_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? QUOTE_MAX_RESPONSE_BYTES;
  const protocol = options.protocol;
  const encoded = protocol?.encode(request);
  const body = encoded ? encoded.body : JSON.stringify(request);
  // A monotonic clock measures latency; the injected Clock dates the log row.
  const started = performance.now();
  // Set when the last byte of the answer is in: validating it is the platform's time, not the seller's.
  let answeredAt: number | null = null;
  const elapsed = () => Math.round(((answeredAt ?? performance.now()) - started) * 10) / 10;
  const controller = new AbortController();
  // undici applies an abort only once the request has a connection: a seller that accepts TCP and never
  // finishes the TLS handshake would hold the storefront until undici's connect timeout. So the deadline
  // also settles the call by itself, whatever stage the request is in (spec-notes Q3: connect included;
  // docs/decisions.md D2).
  let deadlinePassed: (reason: Error) => void = () => {};
  const deadline = new Promise<never>((_, reject) => {
    deadlinePassed = reject;
  });
  const timer = setTimeout(() => {
    controller.abort(DEADLINE_PASSED);
    deadlinePassed(DEADLINE_PASSED);
  }, timeoutMs);
  let httpStatus: number | null = null;
  let responseBody: string | undefined;
  const keep = (bytes: Buffer) => {
    if (options.keepBody)
      responseBody = bytes
        .subarray(0, options.keepBody * 4)
        .toString('utf8')
        .slice(0, options.keepBody);
  };
  const result = (outcome: QuoteOutcome, detail: string | null, extra: Partial<QuoteCallResult> = {}): QuoteCallResult => ({
    outcome,
    latencyMs: elapsed(),
    httpStatus,
    detail,
    ...(responseBody === undefined ? {} : { responseBody }),
    ...extra,
  });

  try {
    const sent = dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers: encoded
        ? { ...REQUEST_HEADERS, ...encoded.headers }
        : options.authorization === undefined
          ? REQUEST_HEADERS
          : { ...REQUEST_HEADERS, authorization: options.authorization },
      body,
      signal: controller.signal,
      // The AbortSignal is the deadline; undici's own timers only as a backstop.
      headersTimeout: timeoutMs * 2,
      bodyTimeout: timeoutMs * 2,
    });
    // Once the deadline won, the request still settles later (aborted at connect, or refused): nobody waits for it.
    sent.catch(() => {});
    const answer = await Promise.race([sent, deadline]);
    httpStatus = answer.statusCode;
    // A gateway's own API has no quote error body: any status but 2xx is http_error (D58).
    const readable = protocol
      ? answer.statusCode >= 200 && answer.statusCode < 300
      : answer.statusCode === 200 || answer.statusCode === 400;
    if (!readable) {
      if (options.keepBody) keep(await readCapped(answer.body, 64 * 1024).catch(() => Buffer.alloc(0)));
      else await answer.body.dump({ limit: 64 * 1024 }).catch(() => {});
      answeredAt = performance.now();
      return result('http_error', `HTTP ${answer.statusCode}`);
    }
    const declared = Number(answer.headers['content-length'] ?? Number.NaN);
    if (declared > maxBytes) {
      answer.body.destroy();
      throw new BodyTooLarge();
    }
    // A declared length within the cap is enforced by the HTTP parser, so the
    // body is read whole (undici's own reader, no async iterator per answer:
    // measured in the quote profile); otherwise it is counted chunk by chunk.
    const bytes = declared <= maxBytes ? Buffer.from(await answer.body.arrayBuffer()) : await readCapped(answer.body, maxBytes);
    answeredAt = performance.now();
    keep(bytes);
    const parsed = parseJson(bytes);

    if (protocol) {
      if (parsed === undefined) return result('invalid_response', 'response.not-json: the gateway answer is not UTF-8 JSON');
      const decoded = protocol.decode(parsed, request);
      if ('invalid' in decoded) return result('invalid_response', decoded.invalid.slice(0, MAX_DETAIL_CHARS));
      const problems = checkQuoteResponse(request, decoded.response, { distributionCenterIds: options.distributionCenterIds });
      if (problems.length > 0) return result('invalid_response', describeViolations(problems));
      // What the gateway answered but could not be offered (a malformed service) is the ok call's detail: the quote log shows it.
      return result('ok', decoded.skipped?.slice(0, MAX_DETAIL_CHARS) ?? null, { response: decoded.response as QuoteResponse });
    }

    if (answer.statusCode === 400) {
      const understood = parsed === undefined ? null : checkQuoteErrorBody(parsed);
      if (!understood) return result('http_error', 'HTTP 400 with a body that is not JSON');
      if (!understood.ok)
        return result(
          'http_error',
          `HTTP 400 with a body that is not a quote error:\n${describeViolations(understood.violations)}`,
        );
      return result(understood.error.code, understood.error.message.slice(0, MAX_DETAIL_CHARS), {
        sellerError: understood.error,
      });
    }

    if (parsed === undefined) return result('invalid_response', 'response.not-json: the 200 body is not UTF-8 JSON');
    const violations = checkQuoteResponse(request, parsed, { distributionCenterIds: options.distributionCenterIds });
    if (violations.length > 0) return result('invalid_response', describeViolations(violations));
    return result('ok', null, { response: parsed as QuoteResponse });
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      return result(
        httpStatus === 200 || (protocol && httpStatus !== null && httpStatus < 300) ? 'invalid_response' : 'http_error',
        `response.too-large: the body is over ${maxBytes} bytes`,
      );
    }
    if (controller.signal.aborted) {
      return result(
        'timeout',
        `no full answer within ${timeoutMs} ms${httpStatus === null ? '' : ` (HTTP ${httpStatus} headers came, the body did not finish)`}`,
      );
    }
    return result('http_error', describeTransportError(error));
  } finally {
    clearTimeout(timer);
  }
}
