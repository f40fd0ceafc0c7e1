import type { ListEnvelopeOf, ListMeta, RateLimitState } from '@feira/contract';
import { DEFAULT_TIMEOUT_MS, type RetryOptions, sendWithRetries } from '../http/retrying-fetch.js';
import { FeiraApiError } from './feira-api-error.js';
import type { RecordAt, RecordByPath, RecordItemPath, RecordListPath } from './record-paths.js';

/**
 * Options of the API client.
 *
 * @example
 * ```ts
 * const options: FeiraClientOptions = {
 *   baseUrl: 'https://localhost:8080',
 *   accessToken: () => tokens.accessToken('seller-42'),
 *   tenantId: '0f8fad5b-d9cb-469f-a165-70867728950e',
 * };
 * ```
 */
export interface FeiraClientOptions {
  /** {base_url}: the platform API address. */
  baseUrl: string;
  /** A token, or a function giving a valid one per call (e.g. `TokenManager#accessToken`). */
  accessToken: string | (() => string | Promise<string>);
  /**
   * The tenant to act for, sent as `X-Tenant-Id` (spec-notes I9). Required
   * when the token holds several tenants; optional with one.
   */
  tenantId?: string;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Time limit of one attempt, the answer's body included. Default 30 000 ms (D54). */
  timeoutMs?: number;
  /** Retries of idempotent calls on 429, 503, network failures and timeouts (D54). Default: 2 retries. */
  retry?: RetryOptions;
}

/**
 * Per-call options.
 *
 * @example
 * ```ts
 * await api.get('/v1/orders/o-1', { tenantId: otherStore });
 * ```
 */
export interface RequestOptions {
  /** Overrides the client's `tenantId` for this call. */
  tenantId?: string;
  /** Query parameters added to the path. */
  query?: Record<string, string | number | boolean | readonly (string | number)[]>;
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

/**
 * A filter value: scalars for `field=`, `__like`, `__gt`…; an array for `__in`.
 *
 * @example
 * ```ts
 * const filters: Record<string, FilterValue> = { status: 'open', 'total__gte': 100, 'id__in': ['a', 'b'] };
 * ```
 */
export type FilterValue = string | number | boolean | readonly (string | number)[];

/**
 * Options of `list()` (spec "List operations (common conventions)").
 *
 * @example
 * ```ts
 * const options: ListOptions = { filters: { status: 'open' }, sort: ['created_at:desc'], limit: 50, paginate: 'cursor' };
 * ```
 */
export interface ListOptions extends Omit<RequestOptions, 'query'> {
  /** Keys are query parameter names as the spec writes them: `status`, `customer.id`, `total__gte`, `id__in`. */
  filters?: Record<string, FilterValue>;
  /** `field`, `field:asc` or `field:desc`; applied left to right. */
  sort?: string | readonly string[];
  /** Page size (`_limit`); the platform clamps it to `max_limit` (spec-notes L1). */
  limit?: number;
  /** `cursor` for massive collections (forward only); `offset` (default) otherwise. */
  paginate?: 'cursor' | 'offset';
  /** Starting `_offset` with offset pagination. */
  offset?: number;
}

/**
 * One page of a list, with the envelope's meta.
 *
 * @example
 * ```ts
 * for await (const page of api.pages('/v1/orders')) console.log(page.meta.page.count);
 * ```
 */
export interface ListPage<T> {
  meta: ListMeta;
  results: T[];
}

function queryString(query: RequestOptions['query'] | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    params.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The platform API client: bearer token (spec-notes I3), `X-Tenant-Id`,
 * typed errors, lists as async iterators that follow `meta.links.next`
 * exactly as given (spec "List operations" rule 4), typed by record on the
 * record paths (`/v1/orders` yields `Order`). Idempotent calls are retried on
 * 429/503 (after `Retry-After`), network failures and timeouts, and any call
 * refused by the app's rate limit (spec-notes I20) after its `Retry-After`;
 * every attempt has a time limit (D54). `rateLimit` is what the last answer
 * said the app has left.
 *
 * @example
 * ```ts
 * import { FeiraClient } from '@feira/sdk';
 *
 * const api = new FeiraClient({ baseUrl: 'https://localhost:8080', accessToken: () => tokens.accessToken(sellerId) });
 * for await (const order of api.list('/v1/orders', { sort: 'created_at:desc', paginate: 'cursor' })) {
 *   console.log(order);
 * }
 * const ticket = await api.get('/seller/v0/tickets/7d1c');
 * ```
 */
export class FeiraClient {
  readonly #options: FeiraClientOptions;
  #rateLimit: RateLimitState | undefined;

  constructor(options: FeiraClientOptions) {
    this.#options = options;
  }

  /**
   * What the last answer's `RateLimit` header said (spec-notes I20): requests the app has left in its
   * bucket for that store (`remaining`) and seconds until the bucket is whole again (`resetSeconds`).
   * A client that walks many pages may slow down before it is refused. Undefined before any answer
   * that carried one.
   *
   * @example
   * ```ts
   * const page = await api.get('/v1/orders');
   * if (api.rateLimit && api.rateLimit.remaining < 5) await setTimeout(1000);
   * ```
   */
  get rateLimit(): RateLimitState | undefined {
    return this.#rateLimit;
  }

  async #token(): Promise<string> {
    const { accessToken } = this.#options;
    return typeof accessToken === 'string' ? accessToken : accessToken();
  }

  /** Resolves a path against {base_url}; an absolute URL (a `links.next`) is used exactly as given. */
  #url(pathOrUrl: string): string {
    return /^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : new URL(pathOrUrl, this.#options.baseUrl).toString();
  }

  /**
   * Sends one request and returns the parsed JSON body (undefined for 204).
   *
   * @throws {FeiraApiError} for any non-2xx answer, with the platform error body.
   * @example
   * ```ts
   * const signup = await api.request<WebhookSignupResponse>('PUT', '/v1/onboarding/signup', {
   *   body: { webhook: 'https://app.example/hooks' },
   * });
   * ```
   */
  async request<T = unknown>(method: string, pathOrUrl: string, options: RequestOptions & { body?: unknown } = {}): Promise<T> {
    const tenantId = options.tenantId ?? this.#options.tenantId;
    const headers: Record<string, string> = {
      authorization: `Bearer ${await this.#token()}`,
      accept: 'application/json',
      ...(tenantId ? { 'x-tenant-id': tenantId } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    };
    const { response, text, retryAfterMs, rateLimit } = await sendWithRetries(
      this.#url(pathOrUrl) + queryString(options.query),
      {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      {
        fetch: this.#options.fetch ?? fetch,
        timeoutMs: options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        retry: this.#options.retry ?? {},
      },
    );
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (rateLimit) this.#rateLimit = rateLimit;
    if (!response.ok)
      throw new FeiraApiError(response.status, body, response.headers.get('x-request-id'), retryAfterMs, rateLimit);
    return body as T;
  }

  /**
   * Reads one resource, e.g. the `data.resource` of a webhook message. A
   * record path (`/v1/orders/<id>`) is typed by its record.
   *
   * @throws {FeiraApiError}
   * @example
   * ```ts
   * const order = await api.get(`/v1/orders/${id}`); // Order
   * const ticket = await api.get<{ id: string; subject: string }>(message.data.resource);
   * ```
   */
  get<P extends RecordItemPath>(path: P, options?: RequestOptions): Promise<RecordAt<P>>;
  get<T = unknown>(path: string, options?: RequestOptions): Promise<T>;
  get(path: string, options: RequestOptions = {}): Promise<unknown> {
    return this.request('GET', path, options);
  }

  /**
   * Pages of a list: the first from `path` and the options, then each
   * `meta.links.next` exactly as given, until it is null.
   *
   * @example
   * ```ts
   * for await (const page of api.pages('/seller/v1/financial-analysis/transactions', { paginate: 'cursor', limit: 100 })) {
   *   console.log(page.results.length);
   * }
   * ```
   */
  pages<P extends RecordListPath>(path: P, options?: ListOptions): AsyncGenerator<ListPage<RecordByPath[P]>, void, undefined>;
  pages<T = unknown>(path: string, options?: ListOptions): AsyncGenerator<ListPage<T>, void, undefined>;
  async *pages<T>(path: string, options: ListOptions = {}): AsyncGenerator<ListPage<T>, void, undefined> {
    const query: Record<string, FilterValue> = { ...options.filters };
    if (options.limit !== undefined) query._limit = options.limit;
    if (options.offset !== undefined) query._offset = options.offset;
    if (options.paginate === 'cursor') query._paginate = 'cursor';
    if (options.sort !== undefined) query._sort = typeof options.sort === 'string' ? options.sort : options.sort.join(',');
    const perCall = {
      ...(options.tenantId ? { tenantId: options.tenantId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    let page = await this.request<ListEnvelopeOf<T>>('GET', path, { ...perCall, query });
    for (;;) {
      yield page;
      const next = page.meta.links.next;
      if (!next) return;
      // Spec "List operations" rule 4: navigate by calling exactly the URL in meta.links.next.
      page = await this.request<ListEnvelopeOf<T>>('GET', next, perCall);
    }
  }

  /**
   * Every record of a list, page after page (see `pages`); on a record path
   * each is typed by its record (`Order`, `Product`, `Ticket`, `Transaction`).
   *
   * @throws {FeiraApiError} e.g. 422 for an unknown filter field (spec-notes L6).
   * @example
   * ```ts
   * for await (const ticket of api.list('/seller/v0/tickets', { filters: { status: 'open' }, sort: 'created_at:desc' })) {
   *   console.log(ticket);
   * }
   * ```
   */
  list<P extends RecordListPath>(path: P, options?: ListOptions): AsyncGenerator<RecordByPath[P], void, undefined>;
  list<T = unknown>(path: string, options?: ListOptions): AsyncGenerator<T, void, undefined>;
  async *list<T>(path: string, options: ListOptions = {}): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages<T>(path, options)) yield* page.results;
  }
}
