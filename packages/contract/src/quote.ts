import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

// The shipping-quote protocol (spec: "Shipping quote request", "Shipping quote
// response", "Shipping quote error body", "Seller-implemented shipping-quote
// endpoint", "Limits"; spec-notes Q2–Q5). The platform, the SDK's quote
// handler and the CLI's `feira quote-check` all judge quotes with the functions
// of this file, so the three can never disagree about what a valid quote is.

/** Limits: quote timeout 1.0 s, no retries (spec-notes Q3: connect + headers + body). */
export const QUOTE_TIMEOUT_MS = 1000;
/** spec-notes Q3: response bodies over 1 MiB are refused. */
export const QUOTE_MAX_RESPONSE_BYTES = 1024 * 1024;
/** Limits: SKU length, 50 characters maximum (quote request). */
export const QUOTE_MAX_SKU_LENGTH = 50;
/** Limits: delivery option id length, 32 characters maximum (quote response). */
export const QUOTE_MAX_OPTION_ID_LENGTH = 32;
/** Limits: distribution centre id length, 32 characters maximum (quote response). */
export const QUOTE_MAX_CENTRE_ID_LENGTH = 32;
/** Limits: options displayed, up to 2 (fastest and cheapest). */
export const QUOTE_MAX_OPTIONS_SHOWN = 2;

/** Shipping quote request: `zipcode` is 8 digits, digits only. */
export const ZIPCODE_PATTERN = '^[0-9]{8}$';
/** Shipping quote request: `session_id` is a UUID v4 (version nibble 4, RFC 4122 variant). */
export const UUID_V4_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';

// ---------------------------------------------------------------------------
// Schemas (the spec's tables). Unknown extra fields are tolerated so that a
// field added in a later version does not break an older reader; every value
// rule of the tables is expressed here or in the rule functions below.

const positive = (description: string) => Type.Number({ exclusiveMinimum: 0, description });

export const QuoteRequestDimensions = Type.Object({
  depth: positive('Greater than 0, metres'),
  height: positive('Greater than 0, metres'),
  width: positive('Greater than 0, metres'),
  weight: positive('Greater than 0, kilograms'),
});
export type QuoteRequestDimensions = Static<typeof QuoteRequestDimensions>;

export const QuoteRequestItem = Type.Object({
  sku: Type.String({ minLength: 1, maxLength: QUOTE_MAX_SKU_LENGTH }),
  quantity: Type.Integer({ exclusiveMinimum: 0 }),
  price: Type.Number({ exclusiveMinimum: 0, description: 'Unit price, greater than 0, 2 decimal places' }),
  currency: Type.Literal('BRL'),
  dimensions: QuoteRequestDimensions,
});
export type QuoteRequestItem = Static<typeof QuoteRequestItem>;

export const QuoteRequest = Type.Object(
  {
    session_id: Type.String({ pattern: UUID_V4_PATTERN, description: 'UUID v4, identifies the request' }),
    zipcode: Type.String({ pattern: ZIPCODE_PATTERN, description: 'Destination postal code: 8 digits' }),
    items: Type.Array(QuoteRequestItem, { minItems: 1 }),
  },
  { $id: 'QuoteRequest' },
);
export type QuoteRequest = Static<typeof QuoteRequest>;

export const DistributionCenterOrigin = Type.Object({
  distribution_center: Type.Object({
    id: Type.String({ minLength: 1, maxLength: QUOTE_MAX_CENTRE_ID_LENGTH }),
  }),
});
export type DistributionCenterOrigin = Static<typeof DistributionCenterOrigin>;

export const DeliveryOption = Type.Object({
  delivery_days: Type.Integer({ exclusiveMinimum: 0 }),
  id: Type.String({ minLength: 1, maxLength: QUOTE_MAX_OPTION_ID_LENGTH, description: 'Shown in the order-management screen' }),
  name: Type.String({ minLength: 1, description: 'Shown to the shopper' }),
  price: Type.Number({ exclusiveMinimum: 0, description: 'Greater than 0, 2 decimal places' }),
  type: Type.String({ minLength: 1, description: '`conventional` is the only value the spec shows' }),
  origin: Type.Optional(DistributionCenterOrigin),
});
export type DeliveryOption = Static<typeof DeliveryOption>;

export const QuotePackageItem = Type.Object({
  sku: Type.String({ minLength: 1 }),
  quantity: Type.Integer({ exclusiveMinimum: 0 }),
});
export type QuotePackageItem = Static<typeof QuotePackageItem>;

export const QuotePackage = Type.Object({
  delivery_options: Type.Array(DeliveryOption, { minItems: 1 }),
  items: Type.Array(QuotePackageItem, { minItems: 1 }),
});
export type QuotePackage = Static<typeof QuotePackage>;

export const QuoteResponse = Type.Object({ packages: Type.Array(QuotePackage, { minItems: 1 }) }, { $id: 'QuoteResponse' });
export type QuoteResponse = Static<typeof QuoteResponse>;

/** Errors / Shipping quote: the three codes, with the message the spec shows for each. */
export const QUOTE_ERROR_CODES = {
  invalid_zipcode: { message: 'Invalid zipcode', itemsRequired: false },
  delivery_not_available: { message: 'Delivery Not Available', itemsRequired: true },
  out_of_stock: { message: 'Itens sem Estoque', itemsRequired: true },
} as const;
export type QuoteErrorCode = keyof typeof QUOTE_ERROR_CODES;
export const QUOTE_ERROR_CODE_NAMES = Object.keys(QUOTE_ERROR_CODES) as QuoteErrorCode[];

export function isQuoteErrorCode(value: unknown): value is QuoteErrorCode {
  return typeof value === 'string' && Object.hasOwn(QUOTE_ERROR_CODES, value);
}

/**
 * Shipping quote error body (HTTP 400). The spec types `available_quantity` as
 * a string; a non-negative integer is accepted too (many sellers send a number).
 */
export const QuoteErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.String(),
    items: Type.Optional(
      Type.Array(
        Type.Object({
          sku: Type.Optional(Type.String()),
          available_quantity: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Integer({ minimum: 0 })])),
        }),
      ),
    ),
  },
  { $id: 'QuoteErrorBody' },
);
export type QuoteErrorBody = Static<typeof QuoteErrorBody>;

/**
 * How one quote call ended (spec-notes Q7): `ok`, `timeout`, `http_error`
 * (no answer, a status other than 200/400, or a 400 that is not a valid error
 * body), `invalid_response` (Q4), or the seller's own error code.
 */
export const QUOTE_OUTCOMES = ['ok', 'timeout', 'http_error', 'invalid_response', ...QUOTE_ERROR_CODE_NAMES] as const;
export type QuoteOutcome = (typeof QUOTE_OUTCOMES)[number];

// ---------------------------------------------------------------------------
// The rule set. Every violation carries a stable rule id (tools may match on
// it), the dotted path of the offending value, and a message for humans.

export const QUOTE_RULES = {
  'request.schema': 'The request matches the shape of the spec table "Shipping quote request"',
  'request.session-id': 'session_id is a UUID v4',
  'request.zipcode': 'zipcode is exactly 8 digits',
  'request.sku-length': 'items[].sku has 1 to 50 characters',
  'request.quantity': 'items[].quantity is an integer greater than 0',
  'request.price-positive': 'items[].price is greater than 0',
  'request.price-decimals': 'items[].price has at most 2 decimal places',
  'request.currency': 'items[].currency is BRL',
  'request.dimensions': 'items[].dimensions (metres, kilograms) are greater than 0',
  'response.not-json': 'The 200 body is JSON (UTF-8)',
  'response.too-large': 'The body is at most 1 MiB (spec-notes Q3)',
  'response.schema': 'The response matches the shape of the spec table "Shipping quote response"',
  'response.items-match-request': "Across packages, the items are exactly the request's SKUs and quantities (spec-notes Q4)",
  'response.option-id-length': 'delivery_options[].id has 1 to 32 characters',
  'response.option-id-unique': 'Option ids are unique within a package (the shopper chooses by id)',
  'response.price-positive': 'delivery_options[].price is greater than 0',
  'response.price-decimals': 'delivery_options[].price has at most 2 decimal places',
  'response.delivery-days': 'delivery_options[].delivery_days is an integer greater than 0',
  'response.origin-required': 'A seller with several distribution centres sends origin on every option (v2.0)',
  'response.centre-id-length': 'origin.distribution_center.id has 1 to 32 characters',
  'response.centre-id-known': "origin.distribution_center.id is one of the seller's configured centres",
  'error.schema': 'The 400 body matches the spec table "Shipping quote error body"',
  'error.code': 'code is invalid_zipcode, delivery_not_available or out_of_stock',
  'error.items-required': 'delivery_not_available and out_of_stock carry items[] with sku and available_quantity',
} as const;
export type QuoteRuleId = keyof typeof QUOTE_RULES;

export interface QuoteViolation {
  rule: QuoteRuleId;
  /** Dotted path of the value, e.g. `packages[0].delivery_options[1].price`; `(body)` for the whole body. */
  path: string;
  message: string;
}

export interface QuoteResponseContext {
  /**
   * The seller's configured distribution-centre ids. With two or more, every
   * option must carry a known origin (spec-notes Q4); with one or none an
   * origin is optional but, when present and the list is not empty, must be known.
   */
  distributionCenterIds: readonly string[];
}

/** `/packages/0/items/1/sku` → `packages[0].items[1].sku`. */
function dottedPath(pointer: string): string {
  if (pointer === '') return '(body)';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

/** `/packages/3/delivery_options/0/price` → `/packages/*\/delivery_options/*\/price`. */
function genericPointer(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, '/*');
}

/**
 * A fast validity check: the schema compiled once, on first use (the platform
 * checks every quote on the request path). Where code generation is forbidden
 * (a strict Content-Security-Policy) it falls back to the interpreter.
 */
function lazyCheck(schema: TSchema): (value: unknown) => boolean {
  let check: ((value: unknown) => boolean) | undefined;
  return (value) => {
    if (!check) {
      try {
        const compiled = TypeCompiler.Compile(schema);
        check = (v) => compiled.Check(v);
      } catch {
        check = (v) => Value.Check(schema, v);
      }
    }
    return check(value);
  };
}

const isValidRequest = lazyCheck(QuoteRequest);
const isValidResponse = lazyCheck(QuoteResponse);
const isValidErrorBody = lazyCheck(QuoteErrorBody);

/**
 * Runs a schema and turns each failure into a violation. A failure on a field
 * that has its own rule (a price that is ≤ 0, an id that is too long) gets that
 * rule's id when the value has the right type; anything else is `schemaRule`.
 */
function schemaViolations(
  schema: TSchema,
  isValid: (value: unknown) => boolean,
  value: unknown,
  schemaRule: QuoteRuleId,
  fieldRules: Record<string, { rule: QuoteRuleId; type: 'string' | 'number' }>,
): QuoteViolation[] {
  if (isValid(value)) return [];
  const seen = new Set<string>();
  const out: QuoteViolation[] = [];
  for (const error of Value.Errors(schema, value)) {
    const field = fieldRules[genericPointer(error.path)];
    const rule = field && typeof error.value === field.type ? field.rule : schemaRule;
    const path = dottedPath(error.path);
    const key = `${rule}\u0000${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ rule, path, message: rule === schemaRule ? `${path}: ${error.message}` : `${path}: ${QUOTE_RULES[rule]}` });
  }
  return out;
}

/** True when `value` has at most two decimal places (prices are in reais with cents). */
export function hasAtMostTwoDecimals(value: number): boolean {
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

/** A decimal amount in reais as integer cents (prices are compared in cents, never as floats). */
export function toCents(value: number): number {
  return Math.round(value * 100);
}

const REQUEST_FIELD_RULES: Record<string, { rule: QuoteRuleId; type: 'string' | 'number' }> = {
  '/session_id': { rule: 'request.session-id', type: 'string' },
  '/zipcode': { rule: 'request.zipcode', type: 'string' },
  '/items/*/sku': { rule: 'request.sku-length', type: 'string' },
  '/items/*/quantity': { rule: 'request.quantity', type: 'number' },
  '/items/*/price': { rule: 'request.price-positive', type: 'number' },
  '/items/*/currency': { rule: 'request.currency', type: 'string' },
  '/items/*/dimensions/depth': { rule: 'request.dimensions', type: 'number' },
  '/items/*/dimensions/height': { rule: 'request.dimensions', type: 'number' },
  '/items/*/dimensions/width': { rule: 'request.dimensions', type: 'number' },
  '/items/*/dimensions/weight': { rule: 'request.dimensions', type: 'number' },
};

/**
 * Checks a shipping quote request against the spec (what the platform sends;
 * what a seller's endpoint receives). Returns no violations for a valid request.
 */
export function checkQuoteRequest(request: unknown): QuoteViolation[] {
  const violations = schemaViolations(QuoteRequest, isValidRequest, request, 'request.schema', REQUEST_FIELD_RULES);
  if (violations.some((v) => v.rule === 'request.schema')) return violations;
  (request as QuoteRequest).items.forEach((item, i) => {
    if (item.price > 0 && !hasAtMostTwoDecimals(item.price)) {
      violations.push({
        rule: 'request.price-decimals',
        path: `items[${i}].price`,
        message: `items[${i}].price: ${item.price} has more than 2 decimal places`,
      });
    }
  });
  return violations;
}

const RESPONSE_FIELD_RULES: Record<string, { rule: QuoteRuleId; type: 'string' | 'number' }> = {
  '/packages/*/delivery_options/*/id': { rule: 'response.option-id-length', type: 'string' },
  '/packages/*/delivery_options/*/price': { rule: 'response.price-positive', type: 'number' },
  '/packages/*/delivery_options/*/delivery_days': { rule: 'response.delivery-days', type: 'number' },
  '/packages/*/delivery_options/*/origin/distribution_center/id': { rule: 'response.centre-id-length', type: 'string' },
};

/** SKU → total quantity. */
function quantitiesBySku(items: readonly { sku: string; quantity: number }[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const item of items) totals.set(item.sku, (totals.get(item.sku) ?? 0) + item.quantity);
  return totals;
}

/**
 * Checks a seller's 200 answer against the request it answers (spec "Shipping
 * quote response"; spec-notes Q4). `response` is the parsed JSON body.
 * Returns no violations for a valid answer; any violation makes the whole
 * answer `invalid_response`.
 */
export function checkQuoteResponse(request: QuoteRequest, response: unknown, context: QuoteResponseContext): QuoteViolation[] {
  const violations = schemaViolations(QuoteResponse, isValidResponse, response, 'response.schema', RESPONSE_FIELD_RULES);
  if (violations.some((v) => v.rule === 'response.schema')) return violations;
  const { packages } = response as QuoteResponse;
  const centres = new Set(context.distributionCenterIds);
  const multiCentre = centres.size > 1;

  packages.forEach((pkg, p) => {
    const ids = new Set<string>();
    pkg.delivery_options.forEach((option, o) => {
      const at = `packages[${p}].delivery_options[${o}]`;
      if (ids.has(option.id)) {
        violations.push({
          rule: 'response.option-id-unique',
          path: `${at}.id`,
          message: `${at}.id: "${option.id}" appears twice in the package`,
        });
      }
      ids.add(option.id);
      if (option.price > 0 && !hasAtMostTwoDecimals(option.price)) {
        violations.push({
          rule: 'response.price-decimals',
          path: `${at}.price`,
          message: `${at}.price: ${option.price} has more than 2 decimal places`,
        });
      }
      const centreId = option.origin?.distribution_center.id;
      if (centreId === undefined) {
        if (multiCentre) {
          violations.push({
            rule: 'response.origin-required',
            path: `${at}.origin`,
            message: `${at}.origin: required because the seller has ${centres.size} distribution centres`,
          });
        }
      } else if (centres.size > 0 && !centres.has(centreId) && centreId.length <= QUOTE_MAX_CENTRE_ID_LENGTH) {
        violations.push({
          rule: 'response.centre-id-known',
          path: `${at}.origin.distribution_center.id`,
          message: `${at}.origin.distribution_center.id: "${centreId}" is not one of the seller's distribution centres`,
        });
      }
    });
  });

  // Items must match the request exactly: the same SKUs with the same total
  // quantities, however the seller splits them into packages.
  const expected = quantitiesBySku(request.items);
  const actual = quantitiesBySku(packages.flatMap((pkg) => pkg.items));
  const problems: string[] = [];
  for (const [sku, quantity] of expected) {
    const got = actual.get(sku);
    if (got === undefined) problems.push(`SKU "${sku}" is missing`);
    else if (got !== quantity) problems.push(`SKU "${sku}" has quantity ${got}, the request asked for ${quantity}`);
  }
  for (const sku of actual.keys()) if (!expected.has(sku)) problems.push(`SKU "${sku}" was not in the request`);
  if (problems.length > 0) {
    violations.push({
      rule: 'response.items-match-request',
      path: 'packages[].items',
      message: `packages[].items: ${problems.join('; ')}`,
    });
  }
  return violations;
}

/** A seller's 400 answer, understood: the code, its message and the stock per SKU it reports. */
export interface QuoteSellerError {
  code: QuoteErrorCode;
  message: string;
  items: { sku: string | null; available_quantity: number | null }[];
}

/**
 * Checks a seller's 400 body (spec "Shipping quote error body", "Errors /
 * Shipping quote"). Returns the understood error, or the violations that make
 * it an `http_error` instead.
 */
export function checkQuoteErrorBody(
  body: unknown,
): { ok: true; error: QuoteSellerError } | { ok: false; violations: QuoteViolation[] } {
  const violations = schemaViolations(QuoteErrorBody, isValidErrorBody, body, 'error.schema', {});
  if (violations.length > 0) return { ok: false, violations };
  const parsed = body as QuoteErrorBody;
  if (!isQuoteErrorCode(parsed.code)) {
    return {
      ok: false,
      violations: [
        {
          rule: 'error.code',
          path: 'code',
          message: `code: "${parsed.code}" is not one of ${QUOTE_ERROR_CODE_NAMES.join(', ')}`,
        },
      ],
    };
  }
  const items = (parsed.items ?? []).map((item) => ({
    sku: item.sku ?? null,
    available_quantity: item.available_quantity === undefined ? null : Number(item.available_quantity),
  }));
  if (
    QUOTE_ERROR_CODES[parsed.code].itemsRequired &&
    (items.length === 0 || items.some((i) => i.sku === null || i.available_quantity === null))
  ) {
    return {
      ok: false,
      violations: [
        {
          rule: 'error.items-required',
          path: 'items',
          message: `items: ${parsed.code} requires items[] with sku and available_quantity`,
        },
      ],
    };
  }
  return { ok: true, error: { code: parsed.code, message: parsed.message, items } };
}

/** The options shown for one package (spec-notes Q5). */
export interface ShownPackage {
  items: QuotePackageItem[];
  fastest: DeliveryOption;
  cheapest: DeliveryOption;
  /** `[fastest, cheapest]`, or `[fastest]` when they are the same option (at most 2: Limits). */
  options: DeliveryOption[];
}

/**
 * spec-notes Q5 / Versioning v2.0: per package, the fastest option (ties:
 * the cheaper) and the cheapest (ties: the faster); one option when they
 * coincide. Remaining ties keep the seller's order. Expects a valid response.
 */
export function pickShownOptions(response: QuoteResponse): ShownPackage[] {
  return response.packages.map((pkg) => {
    let fastest = pkg.delivery_options[0] as DeliveryOption;
    let cheapest = fastest;
    for (const option of pkg.delivery_options.slice(1)) {
      const days = option.delivery_days;
      const cents = toCents(option.price);
      if (days < fastest.delivery_days || (days === fastest.delivery_days && cents < toCents(fastest.price))) fastest = option;
      if (cents < toCents(cheapest.price) || (cents === toCents(cheapest.price) && days < cheapest.delivery_days))
        cheapest = option;
    }
    return { items: pkg.items, fastest, cheapest, options: fastest === cheapest ? [fastest] : [fastest, cheapest] };
  });
}
