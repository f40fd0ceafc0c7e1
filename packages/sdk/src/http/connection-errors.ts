/** The address without its query: what an error message may show. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * No answer came: the connection was refused or reset, the name did not
 * resolve… after every attempt the call was allowed (only idempotent calls are
 * retried). `cause` is the last failure as `fetch` reported it.
 *
 * @example
 * ```ts
 * try {
 *   await api.get('/v1/orders/o-1');
 * } catch (error) {
 *   if (error instanceof FeiraConnectionError) console.warn(`no answer after ${error.attempts} attempts`);
 * }
 * ```
 */
export class FeiraConnectionError extends Error {
  override readonly name: string = 'FeiraConnectionError';
  readonly method: string;
  /** How many times the call was sent. */
  readonly attempts: number;

  constructor(method: string, url: string, attempts: number, cause?: unknown, message?: string) {
    super(message ?? `${method} ${shown(url)}: no answer (${attempts} attempt${attempts === 1 ? '' : 's'})`, { cause });
    this.method = method;
    this.attempts = attempts;
  }
}

/**
 * The answer did not come whole within the time limit (`timeoutMs`, default
 * 30 s per attempt), on every attempt the call was allowed.
 *
 * @example
 * ```ts
 * const api = new FeiraClient({ baseUrl, accessToken, timeoutMs: 5_000 });
 * await api.get('/v1/orders').catch((error) => {
 *   if (error instanceof FeiraTimeoutError) console.warn(`slower than ${error.timeoutMs} ms`);
 * });
 * ```
 */
export class FeiraTimeoutError extends FeiraConnectionError {
  override readonly name: string = 'FeiraTimeoutError';
  readonly timeoutMs: number;

  constructor(method: string, url: string, timeoutMs: number, attempts: number) {
    super(
      method,
      url,
      attempts,
      undefined,
      `${method} ${shown(url)}: no complete answer within ${timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'})`,
    );
    this.timeoutMs = timeoutMs;
  }
}
