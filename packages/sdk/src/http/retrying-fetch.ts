import { parseRateLimitHeader, type RateLimitState } from '@feira/contract';
import { FeiraConnectionError, FeiraTimeoutError } from './connection-errors.js';

/**
 * How a call is retried (D54). A call is retried only when sending it twice
 * does what sending it once does: GET, HEAD, OPTIONS, PUT and DELETE. The
 * platform takes no `Idempotency-Key`, so POST and PATCH are sent once, whatever
 * happens.
 *
 * @example
 * ```ts
 * const api = new FeiraClient({ baseUrl, accessToken, retry: { maxRetries: 4, maxDelayMs: 20_000 } });
 * const patient = new FeiraClient({ baseUrl, accessToken, retry: { maxRetries: 0 } }); // never retried
 * ```
 */
export interface RetryOptions {
  /** Attempts after the first. Default 2; 0 sends every call once. */
  maxRetries?: number;
  /** Backoff before the first retry, doubled before each next one, with full jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Ceiling of a computed backoff. Default 8 s. */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` the client waits for. A longer one is not waited
   * out: the call fails at once with the answer (`FeiraApiError#retryAfterMs`
   * says when to come back). Default 60 s.
   */
  maxRetryAfterMs?: number;
  /** Waits between attempts; default a timer. Tests pass one that records the wait and resolves at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter; default `Math.random`. */
  random?: () => number;
}

/**
 * An attempt's time limit when none is given: the whole exchange, answer body
 * included, must end within it (D54).
 *
 * @example
 * ```ts
 * new FeiraClient({ baseUrl, accessToken, timeoutMs: DEFAULT_TIMEOUT_MS * 2 });
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Retries after the first attempt when none is configured.
 *
 * @example
 * ```ts
 * new FeiraClient({ baseUrl, accessToken, retry: { maxRetries: DEFAULT_MAX_RETRIES + 1 } });
 * ```
 */
export const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 8_000;
const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** Methods whose repetition has the effect of one call (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Answers that say "not now, try again": the request was not carried out. */
const RETRYABLE_STATUS = new Set([429, 503]);

function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/**
 * `Retry-After` (RFC 9110 §10.2.3) in milliseconds from `now`: delay-seconds or
 * an HTTP-date; undefined when absent or unreadable.
 */
function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

const timerSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** What `sendWithRetries` needs besides the request. */
export interface SendPolicy {
  fetch: typeof fetch;
  timeoutMs: number;
  retry: RetryOptions;
  /** Whether this call may be sent again; default: by its method. */
  idempotent?: boolean;
}

/** The final answer with its body read (within the attempt's time limit). */
export interface SentResponse {
  response: Response;
  text: string;
  /** The answer's `Retry-After`, in milliseconds, if it had one. */
  retryAfterMs: number | undefined;
  /** The answer's `RateLimit` (spec-notes I20: what the app has left for this store), if it had one. */
  rateLimit: RateLimitState | undefined;
}

/**
 * Sends a request; a 429 or 503 answer, a network failure or a timeout is
 * retried when the call is idempotent (any call, for a 429 of the app's rate
 * limit: spec-notes I20), after the answer's `Retry-After` or an
 * exponential backoff with full jitter (D54). The last answer is returned
 * whatever its status; a network failure or timeout that outlives the retries
 * throws `FeiraConnectionError` / `FeiraTimeoutError`. The caller's own abort
 * is never retried: its reason is thrown as is.
 */
export async function sendWithRetries(url: string, init: RequestInit, policy: SendPolicy): Promise<SentResponse> {
  const method = (init.method ?? 'GET').toUpperCase();
  const retry = policy.retry;
  const idempotent = policy.idempotent ?? isIdempotent(method);
  const maxRetries = Math.max(0, retry.maxRetries ?? DEFAULT_MAX_RETRIES);
  const retries = idempotent ? maxRetries : 0;
  const sleep = retry.sleep ?? timerSleep;
  const random = retry.random ?? Math.random;
  const callerSignal = init.signal ?? undefined;

  for (let attempt = 0; ; attempt++) {
    const backoff = () =>
      Math.floor(
        random() *
          Math.min(retry.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, (retry.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** attempt),
      );
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let failure: FeiraConnectionError;
    try {
      const response = await policy.fetch(url, { ...init, signal });
      const text = await response.text();
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      const rateLimit = parseRateLimitHeader(response.headers.get('ratelimit'));
      const sent = { response, text, retryAfterMs, rateLimit };
      // spec-notes I20: a 429 carrying the app's RateLimit was refused by its bucket before the route ran,
      // so even a call that is not idempotent is sent again unchanged.
      const refusedUnrun = response.status === 429 && rateLimit !== undefined;
      if (!RETRYABLE_STATUS.has(response.status) || attempt >= (refusedUnrun ? maxRetries : retries)) return sent;
      if (retryAfterMs !== undefined && retryAfterMs > (retry.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS)) {
        // The server asks for longer than this client waits: hand the answer back now.
        return sent;
      }
      await sleep(retryAfterMs ?? backoff(), callerSignal);
      continue;
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      failure = timeout.aborted
        ? new FeiraTimeoutError(method, url, policy.timeoutMs, attempt + 1)
        : new FeiraConnectionError(method, url, attempt + 1, error);
    }
    if (attempt >= retries) throw failure;
    await sleep(backoff(), callerSignal);
  }
}
