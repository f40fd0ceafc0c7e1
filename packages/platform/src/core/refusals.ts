import type { ErrorDetail, ErrorSlug } from '@feira/contract';
import { PlatformError } from './platform-error.js';

/**
 * One refusal of the platform APIs, declared once: the error's slug (the
 * contract's ERROR_SLUGS gives its HTTP status), its message template (`{name}`
 * takes a value), and, for a refusal that names one field, the slug of that
 * `details[]` entry (the template is then the detail's message, and `title`
 * the error's own, when it has one of its own).
 */
interface Refusal {
  slug: ErrorSlug;
  message: string;
  detail?: string;
  title?: string;
  /** Response headers the refusal always carries (the challenge of a 401). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * The catalogue, as Fastify's lib/errors.js: every refusal a code, declared
 * here and nowhere else; throw sites name the code and its values.
 * docs/errors.md lists them (generated: `FEIRA_WRITE_DOCS=1 npx vitest run
 * packages/platform/src/core/refusals.test.ts`), and that test fails on a code
 * declared and never used, or used and not declared. Areas migrated so far:
 * lists, records and the admin API.
 */
export const REFUSALS = {
  // Lists (spec-notes L1–L9): each names one query parameter; a query's problems come back together in one 422.
  LIST_PARAMETER_REPEATED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be given at most once',
  },
  LIST_LIMIT_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an integer of at least 1',
  },
  LIST_PAGINATE_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'the only accepted value is cursor',
  },
  LIST_NEXT_TOKEN_EMPTY: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is empty: follow meta.links.next exactly',
  },
  LIST_NEXT_TOKEN_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not a valid token: follow meta.links.next exactly',
  },
  LIST_NEXT_TOKEN_OTHER_QUERY: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'belongs to other filters or sorts: start again with _paginate=cursor',
  },
  LIST_OFFSET_WITH_CURSOR: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not available with cursor pagination (_paginate=cursor or _next_token)',
  },
  LIST_OFFSET_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an integer of at least 0',
  },
  LIST_OFFSET_TOO_DEEP: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be at most {max} on this collection: use _paginate=cursor to go further',
  },
  LIST_SORT_DIRECTION_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: '"{criterion}": the direction must be asc or desc',
  },
  LIST_SORT_FIELD_UNKNOWN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: '"{field}" is not a sortable field (sortable: {sortable})',
  },
  LIST_SORT_FIELD_REPEATED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: '"{field}" is given more than once',
  },
  LIST_TOO_MANY_FILTERS: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'at most {max} filters' },
  LIST_FILTER_FIELD_UNKNOWN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'UNKNOWN_PARAMETER',
    message: '"{field}" is not a filterable field of this list',
  },
  LIST_FILTER_OPERATOR_UNSUPPORTED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'unsupported operator for {field} (allowed: {allowed})',
  },
  LIST_FILTER_TOO_MANY_VALUES: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'at most {max} values',
  },
  /** A filter whose value its field refuses: `problem` is the value's refusal (LIST_VALUE_…). */
  LIST_FILTER_VALUE_INVALID: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: '{problem}' },
  /** An `__in` list with one bad value: `problem` is that value's refusal. */
  LIST_FILTER_VALUES_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'every value {problem}',
  },
  LIST_VALUE_TOO_LONG: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be at most {max} characters',
  },
  LIST_VALUE_EMPTY: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'must not be empty' },
  LIST_VALUE_NOT_IN_ENUM: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be one of: {values}',
  },
  LIST_VALUE_NOT_INTEGER: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'must be an integer' },
  LIST_VALUE_NOT_DECIMAL: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be a decimal number',
  },
  LIST_VALUE_NOT_MONEY: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an amount with at most 2 decimal places',
  },
  LIST_VALUE_NOT_DATE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an ISO 8601 date or date-time with a time zone',
  },
  LIST_VALUE_DATE_OUT_OF_RANGE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not a valid date-time (a day, hour or zone out of range)',
  },

  // Records (spec-notes R1, W6): the admin and seller record APIs.
  RECORD_NOT_FOUND: { slug: 'NOT_FOUND', message: '{what} not found' },
  RECORD_TENANT_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Tenant not found' },
  RECORD_SKU_TAKEN: {
    slug: 'CONFLICT',
    title: 'A product with this sku already exists in this tenant',
    detail: 'DUPLICATE_VALUE',
    message: 'must be unique per tenant',
  },
  RECORD_MONEY_TOO_LARGE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'makes the amount exceed the maximum of {max}',
  },
  RECORD_MONEY_NOT_TWO_PLACES: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an amount with at most 2 decimal places',
  },

  // The admin API (docs/admin-api.md): its guard, its resources, the sandbox clock, signing-key rotation.
  ADMIN_TOKEN_REQUIRED: {
    slug: 'UNAUTHORIZED',
    message: 'A valid admin token is required',
    headers: { 'www-authenticate': 'Bearer realm="feira-admin"' },
  },
  ADMIN_SELLER_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Seller not found' },
  ADMIN_STORE_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Store not found' },
  ADMIN_CLIENT_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Client not found' },
  ADMIN_LOGIN_TAKEN: {
    slug: 'CONFLICT',
    title: 'A seller with this login already exists',
    detail: 'DUPLICATE_VALUE',
    message: 'is already taken',
  },
  ADMIN_CLOCK_SANDBOX_ONLY: {
    slug: 'FORBIDDEN',
    message:
      'The platform clock can be moved only in sandbox mode (this platform runs with --mode strict): production time is the host clock',
  },
  ADMIN_CLOCK_DURATION_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be from 1s to 366d',
  },
  ADMIN_KEY_ROTATION_PENDING: {
    slug: 'CONFLICT',
    message: 'Signing key {kid} was published at {publishedAt} and waits to sign from {signsFrom}: rotate again after that',
  },
} as const satisfies Record<string, Refusal>;

export type RefusalCode = keyof typeof REFUSALS;

/** The `{name}`s of a template. */
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** What a code's template takes: nothing, or one value per placeholder. */
export type RefusalValues<C extends RefusalCode> = [Placeholders<(typeof REFUSALS)[C]['message']>] extends [never]
  ? []
  : [values: Record<Placeholders<(typeof REFUSALS)[C]['message']>, string | number>];

/** The code's message with its values put in. */
export function refusalMessage<C extends RefusalCode>(code: C, ...values: RefusalValues<C>): string {
  const given: Record<string, string | number> = values[0] ?? {};
  return REFUSALS[code].message.replace(/\{(\w+)\}/g, (_, name: string) => String(given[name]));
}

/** The `details[]` entry of a refusal that names one field. */
export function refusalDetail<C extends RefusalCode>(
  code: C,
  field: string,
  location: 'body' | 'query' | 'path' | 'header',
  ...values: RefusalValues<C>
): ErrorDetail {
  const refusal: Refusal = REFUSALS[code];
  return { field, location, message: refusalMessage(code, ...values), slug: refusal.detail ?? refusal.slug };
}

/** The error of a refusal that names no field. */
export function refuse<C extends RefusalCode>(code: C, ...values: RefusalValues<C>): PlatformError {
  const refusal: Refusal = REFUSALS[code];
  return new PlatformError(refusal.slug, {
    message: refusalMessage(code, ...values),
    ...(refusal.headers ? { headers: { ...refusal.headers } } : {}),
  });
}

/** The error of a refusal that names one field: its one `details[]` entry. */
export function refuseField<C extends RefusalCode>(
  code: C,
  field: string,
  location: 'body' | 'query' | 'path' | 'header',
  ...values: RefusalValues<C>
): PlatformError {
  const refusal: Refusal = REFUSALS[code];
  return new PlatformError(refusal.slug, {
    ...(refusal.title ? { message: refusal.title } : {}),
    details: [refusalDetail(code, field, location, ...values)],
  });
}
