import { ERROR_SLUGS, type ErrorDetail, type ErrorSlug } from '@feira/contract';
import { PlatformError } from './platform-error.js';

/**
 * One refusal of the platform APIs, declared once: the error's slug (the
 * contract's ERROR_SLUGS gives its HTTP status), its message template (`{name}`
 * takes a value), and, for a refusal that names one field, the slug of that
 * `details[]` entry (the template is then the detail's message, and `title`
 * the error's own, when it has one of its own). Every text of a refusal is a
 * template of the same values: the title, the detail slug (a slug that names
 * what was hit, `UPLOAD_LIMIT_{limit}`) and the headers, where `{message}` is
 * the error's message (an RFC 6750 challenge repeats it as its
 * error_description).
 */
interface Refusal {
  slug: ErrorSlug;
  message: string;
  detail?: string;
  title?: string;
  /** Response headers the refusal always carries (the challenge of a 401, the Retry-After of a 429). */
  headers?: Readonly<Record<string, string>>;
}

/** RFC 6750 §3 challenges: each names its error and repeats the error's message as the description. */
const INVALID_REQUEST_CHALLENGE = 'Bearer realm="feira", error="invalid_request", error_description="{message}"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="feira", error="invalid_token", error_description="{message}"';
const INSUFFICIENT_SCOPE_CHALLENGE = 'Bearer realm="feira", error="insufficient_scope", error_description="{message}"';
/** Texts that are both the error's message and its one detail's. */
const STORE_NOT_GRANTED = 'The token is not granted for this tenant';
const STORELESS_TOKEN =
  'This token was granted without a store (choose_tenants=false): start the authorization again without choose_tenants, or with choose_tenants=true, and pick a store';

/**
 * The catalogue, as Fastify's lib/errors.js: every refusal a code, declared
 * here and nowhere else; throw sites name the code and its values.
 * docs/errors.md lists them (generated: `FEIRA_WRITE_DOCS=1 npx vitest run
 * packages/platform/src/core/refusals.test.ts`), and that test fails on a code
 * declared and never used, or used and not declared. Areas in it: lists,
 * records, the admin API, identity, webhooks, shipping (freight included),
 * accounts, the HTTP layer and the console's answers that are not pages; the
 * token endpoint answers RFC 6749's shape (identity/oauth-error.ts) and the
 * quote protocol its own.
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
  /** Over one detail per refused parameter (the LIST_… codes above): the error's message is its slug's. */
  LIST_QUERY_INVALID: { slug: 'UNPROCESSABLE_ENTITY', message: ERROR_SLUGS.UNPROCESSABLE_ENTITY.message },

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
  ADMIN_CLIENT_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Client not found' },
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

  // Identity (spec-notes I3, I9, I14, I20; RFC 6750 §3): the access-token guard and /userinfo. Each 401 and 403
  // carries the RFC 6750 challenge; the token endpoint's own errors are RFC 6749's (identity/oauth-error.ts).
  IDENTITY_TOKEN_MISSING: {
    slug: 'UNAUTHORIZED',
    message: 'Missing bearer token',
    // RFC 6750 §3: no error code when no token was sent at all.
    headers: { 'www-authenticate': 'Bearer realm="feira"' },
  },
  IDENTITY_TOKEN_IN_QUERY: {
    slug: 'UNAUTHORIZED',
    title: 'The access token came in the query (access_token): send it in the Authorization header as "Bearer <token>"',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not read: use the Authorization header',
    headers: { 'www-authenticate': INVALID_REQUEST_CHALLENGE },
  },
  IDENTITY_AUTHORIZATION_MALFORMED: {
    slug: 'UNAUTHORIZED',
    message: 'Malformed Authorization header',
    headers: { 'www-authenticate': INVALID_REQUEST_CHALLENGE },
  },
  IDENTITY_TOKEN_EXPIRED: {
    slug: 'UNAUTHORIZED',
    message: 'Access token expired',
    headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE },
  },
  IDENTITY_TOKEN_INVALID: {
    slug: 'UNAUTHORIZED',
    message: 'Access token invalid',
    headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE },
  },
  IDENTITY_TOKEN_REVOKED: {
    slug: 'UNAUTHORIZED',
    message: 'Access token revoked',
    headers: { 'www-authenticate': INVALID_TOKEN_CHALLENGE },
  },
  /** D45: a browser on another origin may use only its own app's tokens. */
  IDENTITY_ORIGIN_REFUSED: {
    slug: 'FORBIDDEN',
    title: "This application's tokens are not used from this origin",
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not an origin of the token’s application',
  },
  IDENTITY_SCOPE_MISSING: {
    slug: 'FORBIDDEN',
    title: 'This operation needs the scope {scope}',
    detail: 'INSUFFICIENT_SCOPE',
    message: 'missing scope {scope}',
    headers: { 'www-authenticate': 'Bearer realm="feira", error="insufficient_scope", scope="{scope}"' },
  },
  /** /userinfo (OpenID Connect Core §5.3) answers only a token granted openid. */
  IDENTITY_OPENID_SCOPE_MISSING: {
    slug: 'FORBIDDEN',
    title: 'This token was not granted the {scope} scope',
    detail: 'INSUFFICIENT_SCOPE',
    message: 'missing scope {scope}',
    headers: { 'www-authenticate': 'Bearer realm="feira", error="insufficient_scope", scope="{scope}"' },
  },
  /** spec-notes I9 / RFC 6750 §3.1: a store the token does not cover is insufficient_scope. */
  IDENTITY_STORE_NOT_GRANTED: {
    slug: 'FORBIDDEN',
    title: STORE_NOT_GRANTED,
    detail: 'INVALID_PARAMETER_VALUE',
    message: STORE_NOT_GRANTED,
    headers: { 'www-authenticate': INSUFFICIENT_SCOPE_CHALLENGE },
  },
  /** spec-notes I9: a personal grant has no store; the message says how to get a token that has one. */
  IDENTITY_STORELESS_TOKEN: {
    slug: 'FORBIDDEN',
    title: STORELESS_TOKEN,
    detail: 'INVALID_PARAMETER_VALUE',
    message: STORELESS_TOKEN,
    headers: { 'www-authenticate': INSUFFICIENT_SCOPE_CHALLENGE },
  },
  /**
   * spec-notes I9 / RFC 6750 §3.1: a multi-store token that names no store is a malformed request
   * (`invalid_request`, 400), not a missing scope: libraries read `insufficient_scope` as "ask for more scopes".
   */
  IDENTITY_STORE_HEADER_REQUIRED: {
    slug: 'BAD_REQUEST',
    title: 'The token covers several stores: name the one this call acts for in the X-Tenant-Id header',
    detail: 'REQUIRED',
    message: 'required for a token with several stores',
    headers: { 'www-authenticate': INVALID_REQUEST_CHALLENGE },
  },
  /** spec-notes I20: the app's bucket for the store (or, for /userinfo, its seller) is empty. */
  IDENTITY_API_RATE_LIMITED: {
    slug: 'RATE_LIMITED',
    message:
      'This app is over its API rate limit for this store ({requestsPerSecond} requests per second, bursts of {burst}): retry after {retryAfter} s',
    headers: { 'retry-after': '{retryAfter}' },
  },
  /** A state change made with the browser's login session (not a token) carries the session's CSRF token. */
  IDENTITY_SESSION_CSRF_INVALID: { slug: 'FORBIDDEN', message: 'The X-CSRF-Token header is missing or wrong' },

  // Accounts: the seller accounts and the client registration rules (the admin API and the operator console).
  /** A store that does not exist, or that is not one of the console session's seller's. */
  ACCOUNT_STORE_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Store not found' },
  ACCOUNT_LOGIN_TAKEN: {
    slug: 'CONFLICT',
    title: 'A seller with this login already exists',
    detail: 'DUPLICATE_VALUE',
    message: 'is already taken',
  },
  ACCOUNT_URL_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an absolute http(s) URL without fragment',
  },
  ACCOUNT_SCOPE_UNKNOWN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not a scope of the catalogue',
  },
  ACCOUNT_API_SCOPE_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'needs an API scope of the catalogue: openid alone grants no API (every client may ask for openid)',
  },
  ACCOUNT_DEFAULT_SCOPE_NOT_GRANTED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be one of the client’s scopes',
  },

  // Webhooks (spec "Webhook subscription", spec-notes W1, W4, W9, W10): signup and the delivery logs.
  WEBHOOK_SIGN_IN_REQUIRED: {
    slug: 'UNAUTHORIZED',
    message: 'Sign in to the console or send a bearer token',
    headers: { 'www-authenticate': 'Bearer realm="feira"' },
  },
  WEBHOOK_DELIVERY_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Delivery not found' },
  WEBHOOK_SUBSCRIPTION_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Subscription not found' },
  WEBHOOK_SINCE_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be a date-time that is not in the future',
  },
  /** spec-notes W10: v0 deliveries are unsigned, so there is no Standard Webhooks signature to add. */
  WEBHOOK_STANDARD_WEBHOOKS_V1_ONLY: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is for v1 subscriptions only: v0 deliveries are not signed',
  },
  /** W1: over one detail per topic the token's scopes cannot read (WEBHOOK_TOPIC_SCOPE_MISSING). */
  WEBHOOK_TOPICS_NOT_READABLE: { slug: 'FORBIDDEN', message: 'The token cannot read the records of these topics' },
  WEBHOOK_TOPIC_SCOPE_MISSING: { slug: 'FORBIDDEN', detail: 'INSUFFICIENT_SCOPE', message: '{topic} needs the scope {scope}' },
  WEBHOOK_NO_TOPIC_ALLOWED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: "the token's scopes allow no topic",
  },
  // Spec "Webhook URL rejected (v1)": each names `webhook` in the body.
  WEBHOOK_URL_NOT_ABSOLUTE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an absolute URL',
  },
  WEBHOOK_URL_NOT_HTTP: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an http or https URL',
  },
  WEBHOOK_URL_NOT_HTTPS: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must use the HTTPS scheme',
  },
  WEBHOOK_URL_CREDENTIALS: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must not contain credentials',
  },
  WEBHOOK_URL_FRAGMENT: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must not contain a fragment',
  },
  /** spec-notes W9: the SSRF policy's reason (loopback, private, link-local …). */
  WEBHOOK_URL_ADDRESS_REFUSED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'points to a refused address ({reason})',
  },

  // Shipping (spec "Seller-implemented shipping-quote endpoint", spec-notes Q1–Q9): settings, gateways, the
  // storefront quote and checkout, freight tables and their uploads.
  SHIPPING_TENANT_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Tenant not found' },
  SHIPPING_SETTINGS_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Shipping settings not found' },
  SHIPPING_GATEWAY_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Gateway not found' },
  SHIPPING_FREIGHT_TABLE_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Freight table not found' },
  /** A settings body the schema refuses, when it comes from a caller that skipped the route's schema (the console). */
  SHIPPING_SETTINGS_INVALID: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: '{problem}' },
  SHIPPING_METHOD_AND_METHODS: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'give either method or methods, not both',
  },
  SHIPPING_METHOD_REQUIRED: { slug: 'UNPROCESSABLE_ENTITY', detail: 'MISSING_PARAMETER', message: 'is required (or methods)' },
  SHIPPING_METHOD_UNKNOWN: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'is not a quote method' },
  SHIPPING_ZIPCODE_INVALID: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'must be 8 digits' },
  SHIPPING_CENTRE_ID_LENGTH: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be 1 to {max} characters',
  },
  /** A distribution centre's id, or a cart's sku, given twice. */
  SHIPPING_VALUE_REPEATED: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'appears twice' },
  /** Backup rates (Q8) for methods the store does not use: `methods` the ones a fallback backs up. */
  SHIPPING_FALLBACK_BACKS_UP_NEITHER: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'backs up a {methods} method; the store has neither',
  },
  SHIPPING_FALLBACK_BACKS_UP_NONE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'backs up a {methods} method; the store has none of them',
  },
  SHIPPING_FALLBACK_IS_A_METHOD: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: '{fallback} is already one of the methods: its options are always merged',
  },
  SHIPPING_URL_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'MISSING_PARAMETER',
    message: 'is required by the seller_api method',
  },
  SHIPPING_URL_NOT_TAKEN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is only for the seller_api method',
  },
  SHIPPING_GATEWAY_NOT_TAKEN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is only for the gateway method',
  },
  SHIPPING_GATEWAY_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'MISSING_PARAMETER',
    message: 'is required by the gateway method',
  },
  SHIPPING_GATEWAY_ID_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'MISSING_PARAMETER',
    message: 'is required by a {contract} gateway',
  },
  SHIPPING_GATEWAY_ID_NOT_TAKEN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is only for a {contract} gateway',
  },
  SHIPPING_GATEWAY_UNKNOWN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not a registered gateway',
  },
  SHIPPING_GATEWAY_ORIGIN_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'MISSING_PARAMETER',
    message: 'a {kind} gateway quotes from a distribution centre: give one a zipcode',
  },
  SHIPPING_GATEWAY_CREDENTIAL_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'MISSING_PARAMETER',
    message: 'is required when the gateway is first set',
  },
  // Spec-notes Q1: the seller's quote URL; each names `url` in the body.
  SHIPPING_QUOTE_URL_TOO_LONG: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be at most {max} characters',
  },
  SHIPPING_QUOTE_URL_NOT_ASCII: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be printable ASCII without spaces (percent-encode other characters)',
  },
  SHIPPING_QUOTE_URL_NOT_ABSOLUTE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an absolute URL',
  },
  SHIPPING_QUOTE_URL_NOT_HTTP: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be an http or https URL',
  },
  SHIPPING_QUOTE_URL_NOT_HTTPS: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must use the HTTPS scheme',
  },
  SHIPPING_QUOTE_URL_CREDENTIALS: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must not contain credentials (put a token in the query string instead)',
  },
  SHIPPING_QUOTE_URL_FRAGMENT: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must not contain a fragment (it is never sent)',
  },
  SHIPPING_QUOTE_URL_PORT: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must not contain a port (spec: no server port in the quote URL)',
  },
  SHIPPING_QUOTE_URL_NO_HOST: { slug: 'UNPROCESSABLE_ENTITY', detail: 'INVALID_PARAMETER_VALUE', message: 'must name a host' },
  SHIPPING_QUOTE_URL_UNRESOLVED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'host name does not resolve',
  },
  /** spec-notes W9: the SSRF policy's reason (loopback, private, link-local …). */
  SHIPPING_QUOTE_URL_ADDRESS_REFUSED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'points to a refused address ({reason})',
  },
  // The storefront's quote and checkout (spec-notes Q6): each names a cart line in the body.
  SHIPPING_SKU_UNKNOWN: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not a product of this store',
  },
  SHIPPING_ITEM_NOT_QUOTABLE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'cannot be quoted: {problem}',
  },
  /** A checkout's 409 when no method answers: `reason` is the shipping-unavailable reason's message, shown to the buyer. */
  SHIPPING_CHECKOUT_UNAVAILABLE: { slug: 'CONFLICT', title: '{reason}', detail: 'SHIPPING_UNAVAILABLE', message: '{reason}' },
  /** The console's quote statistics (spec-notes Q7) are bucketed over the last hour or the last day. */
  SHIPPING_QUOTE_WINDOW_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be 1h or 24h',
  },
  SHIPPING_CHOICE_NOT_OFFERED: {
    slug: 'CONFLICT',
    title: 'The chosen delivery option is not offered by the checkout quote',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'is not among the options shown now',
  },
  // Freight tables (spec-notes Q9, D62, D124): the uploads and their bounds.
  /** The seller routes of freight tables and of the quote log answer the console's session only. */
  SHIPPING_SIGN_IN_REQUIRED: { slug: 'UNAUTHORIZED', message: 'Sign in to the console first' },
  SHIPPING_UPLOAD_MEDIA_TYPE: {
    slug: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Send the freight spreadsheet as Content-Type: text/csv or {xlsx}',
  },
  /** D124: a store's upload bucket is empty; its body is not read. */
  SHIPPING_UPLOADS_TOO_FAST: {
    slug: 'RATE_LIMITED',
    message:
      'This store sends uploads faster than {perSecond} a second (bursts of {burst}): retry after {retryAfter} s; the table was not changed',
    headers: { 'retry-after': '{retryAfter}' },
  },
  SHIPPING_TABLE_NAME_REQUIRED: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'MISSING_PARAMETER',
    message: 'is required for a new table',
  },
  SHIPPING_CUBIC_WEIGHT_FACTOR_TOO_LARGE: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be at most {max} kg per m³',
  },
  SHIPPING_TABLE_IMPORT_BUSY: {
    slug: 'CONFLICT',
    message: 'This table is being imported by another request; try again when it ends',
  },
  /**
   * An upload past one of its bounds (upload-limits.ts): 413 for the size of the whole, 422 for one cell's or
   * row's shape. `what` says which bound and its value, `limit` names its setting, `where` where it was hit.
   */
  SHIPPING_UPLOAD_TOO_LARGE: {
    slug: 'PAYLOAD_TOO_LARGE',
    title: 'The spreadsheet was refused: {what} (upload limit {limit}); the table was not changed',
    detail: 'UPLOAD_LIMIT_{limitSlug}',
    message: '{what}',
  },
  SHIPPING_UPLOAD_TOO_LARGE_AT: {
    slug: 'PAYLOAD_TOO_LARGE',
    title: 'The spreadsheet was refused: {what} (upload limit {limit}) at {where}; the table was not changed',
    detail: 'UPLOAD_LIMIT_{limitSlug}',
    message: '{where}: {what}',
  },
  SHIPPING_UPLOAD_SHAPE: {
    slug: 'UNPROCESSABLE_ENTITY',
    title: 'The spreadsheet was refused: {what} (upload limit {limit}); the table was not changed',
    detail: 'UPLOAD_LIMIT_{limitSlug}',
    message: '{what}',
  },
  SHIPPING_UPLOAD_SHAPE_AT: {
    slug: 'UNPROCESSABLE_ENTITY',
    title: 'The spreadsheet was refused: {what} (upload limit {limit}) at {where}; the table was not changed',
    detail: 'UPLOAD_LIMIT_{limitSlug}',
    message: '{where}: {what}',
  },
  /** Over one detail per refused cell (SHIPPING_LINE_INVALID, SHIPPING_SHEET_CELL_INVALID, SHIPPING_SHEET_ROW_INVALID). */
  SHIPPING_SPREADSHEET_PROBLEMS: {
    slug: 'UNPROCESSABLE_ENTITY',
    message: 'The spreadsheet has {count} problem(s); the table was not changed',
  },
  SHIPPING_SPREADSHEET_PROBLEMS_LISTED: {
    slug: 'UNPROCESSABLE_ENTITY',
    message: 'The spreadsheet has {count} problem(s) (the first {listed} are listed); the table was not changed',
  },
  SHIPPING_LINE_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'line {line}, {column}: {problem}',
  },
  SHIPPING_SHEET_CELL_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'sheet "{sheet}", row {line}, column {column} (cell {cell}): {problem}',
  },
  SHIPPING_SHEET_ROW_INVALID: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'sheet "{sheet}", row {line}, column {column}: {problem}',
  },

  // The HTTP layer (http/): refusals made before any route runs, and the metrics endpoint.
  /** With --metrics-token (docs/security.md, metrics disclosure), Prometheus sends it as a bearer token. */
  HTTP_METRICS_TOKEN_REQUIRED: {
    slug: 'UNAUTHORIZED',
    message: 'The metrics token is required',
    headers: { 'www-authenticate': 'Bearer realm="feira-metrics"' },
  },
  /** RFC 8259 §8.1: JSON exchanged between systems is UTF-8; the detail names the `charset` the request gave. */
  HTTP_JSON_NOT_UTF8: {
    slug: 'UNSUPPORTED_MEDIA_TYPE',
    title: 'JSON bodies must be UTF-8',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'charset {charset} is not UTF-8',
  },
  /** RFC 8259 §4: a name given twice in one object, which JSON.parse would silently read as its last value. */
  HTTP_JSON_KEY_REPEATED: { slug: 'BAD_REQUEST', detail: 'DUPLICATE_KEY', message: 'appears more than once in one object' },
  /** PostgreSQL text cannot hold U+0000: refused in path, query and body alike on both databases. */
  HTTP_NUL_CHARACTER: {
    slug: 'UNPROCESSABLE_ENTITY',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must not contain the NUL character (U+0000)',
  },
  // Fastify's own refusals, made before a route runs (http/error-handler.ts maps each of its codes to one of these).
  /** A JSON body that does not parse, or is empty where the content type promises JSON. */
  HTTP_BODY_NOT_JSON: { slug: 'BAD_REQUEST', detail: 'INVALID_PARAMETER_VALUE', message: 'is not valid JSON' },
  /** A body past the server's `bodyLimit` (an upload route has its own, larger bounds: SHIPPING_UPLOAD_…). */
  HTTP_BODY_TOO_LARGE: { slug: 'PAYLOAD_TOO_LARGE', detail: 'INVALID_PARAMETER_VALUE', message: 'is larger than {limit} bytes' },
  /** A content type no parser of the route takes, or a Content-Length that does not match the body. */
  HTTP_MEDIA_TYPE_UNSUPPORTED: {
    slug: 'UNSUPPORTED_MEDIA_TYPE',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'must be application/json (or a form on the identity pages)',
  },
  HTTP_URL_MALFORMED: { slug: 'BAD_REQUEST', detail: 'INVALID_PARAMETER_VALUE', message: 'is not a valid URL component' },
  HTTP_PATH_SEGMENT_TOO_LONG: {
    slug: 'URI_TOO_LONG',
    detail: 'INVALID_PARAMETER_VALUE',
    message: 'has a segment longer than the server accepts',
  },
  /** A request the route's schema refuses: one `details[]` entry per problem, each naming its field and what was wrong. */
  HTTP_SCHEMA_REFUSED: { slug: 'UNPROCESSABLE_ENTITY', message: ERROR_SLUGS.UNPROCESSABLE_ENTITY.message },
  /** RFC 9110 §15.5.6: a real path asked with a method it does not answer; `Allow` lists those it does. */
  HTTP_METHOD_NOT_ALLOWED: {
    slug: 'METHOD_NOT_ALLOWED',
    message: 'Route {path} does not answer {method}; it answers {allowed}',
    headers: { allow: '{allowed}' },
  },
  HTTP_ROUTE_NOT_FOUND: { slug: 'NOT_FOUND', message: 'Route {method} {path} not found' },
  // Node's HTTP parser's refusals, answered before Fastify sees a request (http/client-error.ts).
  HTTP_HEADERS_TOO_LARGE: {
    slug: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    message: 'The request line and headers are larger than the server accepts',
  },
  HTTP_REQUEST_TIMEOUT: { slug: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time' },
  HTTP_NOT_HTTP: { slug: 'BAD_REQUEST', message: 'The request is not valid HTTP' },
  // The 503s: each says when to come back (RFC 9110 §10.2.3, http/service-unavailable.ts).
  /** The socket is bound before the app is ready: a restart's span. */
  HTTP_STARTING_UP: { slug: 'SERVICE_UNAVAILABLE', message: 'Starting up', headers: { 'retry-after': '{retryAfter}' } },
  /** The app is closing while a connection still routes to it. */
  HTTP_SHUTTING_DOWN: { slug: 'SERVICE_UNAVAILABLE', message: 'Shutting down', headers: { 'retry-after': '{retryAfter}' } },
  /** The database is down, restarting or cut off: the request may succeed once it is back. */
  HTTP_DATABASE_UNAVAILABLE: {
    slug: 'SERVICE_UNAVAILABLE',
    message: 'The database is unavailable; retry later',
    headers: { 'retry-after': '{retryAfter}' },
  },

  // The console's answers that are not pages: its live regions (server-sent events) and the operator's forms.
  /** A live region of a store or delivery the session cannot see: the slug's own message, as a missing route's. */
  CONSOLE_LIVE_NOT_FOUND: { slug: 'NOT_FOUND', message: ERROR_SLUGS.NOT_FOUND.message },
  /**
   * The operator console answers it in its reader's language: its text is the console catalogues'
   * `refusal.CONSOLE_CLOCK_SANDBOX_ONLY`, whose English is this message (i18n's `translatedRefusal`).
   */
  CONSOLE_CLOCK_SANDBOX_ONLY: { slug: 'FORBIDDEN', message: 'The platform clock can be moved only in sandbox mode.' },
} as const satisfies Record<string, Refusal>;

export type RefusalCode = keyof typeof REFUSALS;

/** The `{name}`s of a template. */
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

/** Every template of a code: its message, title, detail slug and headers. */
type TemplatesOf<R> =
  | (R extends { message: infer M extends string } ? M : never)
  | (R extends { title: infer T extends string } ? T : never)
  | (R extends { detail: infer D extends string } ? D : never)
  | (R extends { headers: infer H } ? H[keyof H] & string : never);

/** The values a code's templates take (`{message}` in a header is the error's own message, not a value). */
type ValueNames<C extends RefusalCode> = Exclude<Placeholders<TemplatesOf<(typeof REFUSALS)[C]>>, 'message'>;

/** What a code's templates take: nothing, or one value per placeholder. */
export type RefusalValues<C extends RefusalCode> = [ValueNames<C>] extends [never]
  ? []
  : [values: Record<ValueNames<C>, string | number>];

function filled(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
}

/** The code's message with its values put in. */
export function refusalMessage<C extends RefusalCode>(code: C, ...values: RefusalValues<C>): string {
  return filled(REFUSALS[code].message, values[0] ?? {});
}

/** The `details[]` entry of a refusal that names one field. */
export function refusalDetail<C extends RefusalCode>(
  code: C,
  field: string,
  location: 'body' | 'query' | 'path' | 'header',
  ...values: RefusalValues<C>
): ErrorDetail {
  const refusal: Refusal = REFUSALS[code];
  const given = values[0] ?? {};
  return { field, location, message: filled(refusal.message, given), slug: filled(refusal.detail ?? refusal.slug, given) };
}

/** The error of a code with the message and details given: its headers filled in with that message. */
function refusalError(
  refusal: Refusal,
  given: Record<string, string | number>,
  message: string | undefined,
  details: ErrorDetail[],
) {
  const headers = refusal.headers
    ? Object.fromEntries(
        Object.entries(refusal.headers).map(([name, value]) => [
          name,
          filled(value, { ...given, message: message ?? ERROR_SLUGS[refusal.slug].message }),
        ]),
      )
    : undefined;
  return new PlatformError(refusal.slug, {
    ...(message !== undefined ? { message } : {}),
    ...(details.length > 0 ? { details } : {}),
    ...(headers ? { headers } : {}),
  });
}

/** The error of a refusal that names no field. */
export function refuse<C extends RefusalCode>(code: C, ...values: RefusalValues<C>): PlatformError {
  const given = values[0] ?? {};
  return refusalError(REFUSALS[code], given, refusalMessage(code, ...values), []);
}

/**
 * The error of a refusal that names no field, in its reader's language: `text` is the code's message as the
 * console's catalogues translate it (i18n's `translatedRefusal`); the slug and the headers are the code's.
 */
export function refuseTranslated<C extends RefusalCode>(code: C, text: string, ...values: RefusalValues<C>): PlatformError {
  return refusalError(REFUSALS[code], values[0] ?? {}, text, []);
}

/** The error of a refusal whose fields are each a refusal of their own (`refusalDetail`): the code's message over them. */
export function refuseDetails<C extends RefusalCode>(
  code: C,
  details: ErrorDetail[],
  ...values: RefusalValues<C>
): PlatformError {
  const given = values[0] ?? {};
  return refusalError(REFUSALS[code], given, refusalMessage(code, ...values), details);
}

/** The error of a refusal that names one field: its one `details[]` entry. */
export function refuseField<C extends RefusalCode>(
  code: C,
  field: string,
  location: 'body' | 'query' | 'path' | 'header',
  ...values: RefusalValues<C>
): PlatformError {
  const refusal: Refusal = REFUSALS[code];
  const given = values[0] ?? {};
  const title = refusal.title === undefined ? undefined : filled(refusal.title, given);
  return refusalError(refusal, given, title, [refusalDetail(code, field, location, ...values)]);
}
