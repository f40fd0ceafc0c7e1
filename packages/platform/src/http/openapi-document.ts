import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_OPERATORS, type ListResource } from '../lists/list-resource.js';
import type { ListRouteConfig } from '../lists/list-route.js';

/**
 * How the OpenAPI document is derived from the routes themselves, so it cannot
 * drift from what they do: the scope of each access-token guard, the list
 * declaration of each list route, the errors each kind of route can answer.
 * `openapiRouteTransform` is @fastify/swagger's per-route `transform`.
 */

/** Set on a guard function by `requireAccessToken`: the scope the route needs (null: any token). */
export const GUARD_SCOPE = Symbol.for('feira.openapi.guardScope');

const ERROR_REF = { $ref: 'PlatformError#' };

/**
 * A response schema for documentation of a body that has no contract schema (admin views):
 * any object passes through the serializer unchanged.
 */
export function documentedObject(description: string) {
  return { type: 'object', additionalProperties: true, description } as const;
}

/** The same for a list envelope (`results`, `meta`). */
export function documentedList(description: string) {
  return {
    type: 'object',
    additionalProperties: true,
    description,
    properties: {
      results: { type: 'array', items: { type: 'object', additionalProperties: true } },
      meta: { type: 'object', additionalProperties: true },
    },
  } as const;
}

/** A platform error response (`{message, slug, details[], request_id}`) with what it means on this route. */
export function errorResponse(description: string) {
  return { $ref: 'PlatformError#', description } as const;
}

function error(description: string) {
  return { ...ERROR_REF, description };
}

type JsonSchema = Record<string, unknown>;

/**
 * `X-Tenant-Id`, the store a seller call acts for (spec-notes I9). Routes that
 * read it declare it in their `headers` schema; routes behind the access-token
 * guard get it from the transform below.
 */
const TENANT_HEADER = {
  type: 'string',
  description:
    'The store this call acts for: required when the token was granted for several stores, optional with one (spec-notes I9)',
} as const;

/** The headers schema of a route that reads `X-Tenant-Id` (Fastify keys headers in lower case). */
export const tenantHeaders = { type: 'object', properties: { 'x-tenant-id': TENANT_HEADER } } as const;

/**
 * Route `config` of a route that reads its body itself (a stream, not parsed
 * against a schema): each media type it takes and what that body holds. Only
 * the document reads it: Fastify validates no such body. Add a media type by
 * adding a key (and its content-type parser beside the route).
 */
export interface RawBodyRouteConfig {
  rawBody?: { content: Record<string, { schema: JsonSchema }> };
  /**
   * A body the route takes, shown as the operation's example (generators,
   * Swagger UI's "Try it out" and the Postman collection start from it). It
   * must pass the route's own body schema: route-document.test.ts sends it.
   */
  bodyExample?: unknown;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RawBodyRouteConfig {}
}

/** The query parameters of one list, derived from its declaration: paging, `_sort` with its allowed values, and every filter with its operators. */
export function listQuerySchema(resource: ListResource<never, unknown>): JsonSchema {
  const maxLimit = resource.maxLimit ?? 100;
  const properties: Record<string, JsonSchema> = {
    _limit: {
      type: 'integer',
      minimum: 1,
      description: `Page size; above ${maxLimit} it is clamped to ${maxLimit} (spec-notes L1)`,
    },
    _offset: {
      type: 'integer',
      minimum: 0,
      ...(resource.massive ? { maximum: 5000 } : {}),
      description: resource.massive
        ? 'Records to skip (default 0); at most 5000 on this collection, use `_paginate=cursor` beyond (spec-notes L3)'
        : 'Records to skip (default 0)',
    },
    _paginate: { type: 'string', enum: ['cursor'], description: 'Keyset pagination: follow `meta.links.next` (spec-notes L4)' },
    _next_token: {
      type: 'string',
      description:
        'The cursor of the next page: the `_next_token` parameter of `meta.links.next` in the previous page (cursor pagination; or follow that link as it is)',
    },
  };
  const sortFields = [...new Set([...resource.sorts, 'id'])];
  const key = `(${sortFields.map((f) => f.replace(/\./g, '\\.')).join('|')})(:(asc|desc))?`;
  properties._sort = {
    type: 'string',
    pattern: `^${key}(,${key})*$`,
    description: `Comma-separated sort keys, each \`field\` or \`field:asc\` / \`field:desc\`. Allowed fields: ${sortFields
      .map((f) => `\`${f}\``)
      .join(', ')}. \`id\` is always the final tie-breaker.`,
    examples: [`${sortFields[0]}:desc`],
  };
  for (const [name, field] of Object.entries(resource.fields)) {
    const value: JsonSchema =
      field.type === 'enum'
        ? { type: 'string', enum: [...(field.values ?? [])] }
        : field.type === 'integer'
          ? { type: 'integer' }
          : field.type === 'number' || field.type === 'money'
            ? { type: 'number' }
            : field.type === 'datetime'
              ? { type: 'string', format: 'date-time' }
              : { type: 'string' };
    for (const operator of field.operators ?? DEFAULT_OPERATORS[field.type]) {
      const parameter = operator === 'eq' ? name : `${name}__${operator}`;
      properties[parameter] =
        operator === 'in'
          ? { type: 'string', description: `\`${name}\` is one of these comma-separated values` }
          : operator === 'like'
            ? { type: 'string', description: `\`${name}\` contains this text, case-insensitive (spec-notes L7)` }
            : { ...value, description: `\`${name}\` ${OPERATOR_WORDS[operator]} this value` };
    }
  }
  return { type: 'object', properties };
}

const OPERATOR_WORDS: Record<string, string> = {
  eq: 'equals',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  lt: 'is less than',
  lte: 'is less than or equal to',
};

interface TransformInput {
  schema: Record<string, unknown> | undefined;
  url: string;
  route: { method: string | string[]; preHandler?: unknown; config?: unknown };
}

function guardScopeOf(preHandler: unknown): string | null | undefined {
  for (const handler of [preHandler].flat()) {
    if (typeof handler === 'function' && GUARD_SCOPE in handler)
      return (handler as { [GUARD_SCOPE]: string | null })[GUARD_SCOPE];
  }
  return undefined;
}

/**
 * @fastify/swagger's per-route transform: only the document changes, never the
 * validation. Seller routes (with an access-token guard) get the `oauth2` scheme
 * with their scope, the `X-Tenant-Id` header and the guard's 400/401/403/429; admin
 * routes their 401; public routes `security: []`; list routes their typed query;
 * any route with input its 422 (validation, U+0000).
 */
export function openapiRouteTransform({ schema, url, route }: TransformInput): { schema: Record<string, unknown>; url: string } {
  if (!schema || schema.hide) return { schema: schema ?? {}, url };
  const doc: Record<string, unknown> = { ...schema };
  const responses: Record<string, unknown> = { ...((schema.response as Record<string, unknown>) ?? {}) };
  const scope = guardScopeOf(route.preHandler);
  const security = (schema.security as Array<Record<string, unknown>> | undefined) ?? [];
  if (scope !== undefined) {
    doc.security = [{ feiraOAuth: scope ? [scope] : [] }];
    doc.headers = {
      type: 'object',
      properties: {
        'x-tenant-id': TENANT_HEADER,
        ...(((schema.headers as JsonSchema | undefined)?.properties as JsonSchema | undefined) ?? {}),
      },
    };
    responses[400] ??= error('A token for several stores named none in X-Tenant-Id (RFC 6750 §3.1 invalid_request)');
    responses[401] ??= error('No bearer token, or one that is invalid, expired or revoked');
    responses[403] ??= error('The token lacks the scope, or is not granted for the store named');
    responses[429] ??= error(
      "The app is over its API rate limit for this store (spec-notes I20): wait the seconds of Retry-After; every answer's RateLimit-Policy and RateLimit headers say the limit and what is left",
    );
  } else if (security.some((s) => 'adminToken' in s)) {
    responses[401] ??= error('No valid admin token');
    // Listed once, under the admin group after the seller API, not beside the seller's operations.
    doc.tags = ['admin'];
  } else if (schema.security === undefined) {
    doc.security = [];
  }
  const config = route.config as (ListRouteConfig & RawBodyRouteConfig) | undefined;
  if (config?.listResource) doc.querystring = listQuerySchema(config.listResource);
  if (config?.rawBody) doc.body = { content: config.rawBody.content };
  // Carried on the operation until openapiObjectTransform puts it on the JSON media type (a named body is a bare `$ref`).
  else if (config?.bodyExample !== undefined && doc.body) doc[BODY_EXAMPLE] = config.bodyExample;
  // The OAuth endpoints answer RFC 6749 §5.2 bodies only, declared on their routes.
  if (url.startsWith('/oauth/')) {
    doc.response = responses;
    return { schema: doc, url };
  }
  // Every route can answer 422: the NUL guard (http/nul-guard.ts) refuses U+0000 anywhere in path, query or body.
  responses[422] ??= error(
    doc.querystring || doc.body || doc.params
      ? 'A parameter or field is missing, of the wrong type, out of range, or holds U+0000 (details name it)'
      : 'A query parameter holds U+0000 (details name it)',
  );
  const methods = [route.method].flat();
  if (doc.body || methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH')) {
    responses[400] ??= error('The body is not valid JSON');
    responses[413] ??= error('The body is larger than the limit');
    responses[415] ??= error('The body is not JSON');
  }
  doc.response = responses;
  return { schema: doc, url };
}

/** Where the transform leaves a route's body example for `openapiObjectTransform` (an `x-` key: @fastify/swagger copies it to the operation). */
const BODY_EXAMPLE = 'x-feira-body-example';

/**
 * @fastify/swagger's `transformObject`: the finished document. A body example
 * left on an operation becomes the `example` of its `application/json`
 * request body, beside the schema (a component reference for named bodies).
 */
export function openapiObjectTransform({ openapiObject }: { openapiObject: Record<string, unknown> }): Record<string, unknown> {
  const paths = (openapiObject.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (!(BODY_EXAMPLE in operation)) continue;
      const json = (operation.requestBody as { content?: Record<string, Record<string, unknown>> } | undefined)?.content?.[
        'application/json'
      ];
      if (json) json.example = operation[BODY_EXAMPLE];
      delete operation[BODY_EXAMPLE];
    }
  }
  return openapiObject;
}

/**
 * The groups of the document after the record kinds' own (each kind names its
 * group: app.ts puts them first, in the registry's order): webhooks, identity,
 * storefront and the operator's admin API.
 */
export const OPENAPI_TAGS = [
  { name: 'webhooks', description: 'Subscribing to change notifications, and the notifications themselves' },
  { name: 'identity', description: 'OAuth 2.0: metadata, keys, token, revocation, introspection' },
  { name: 'shipping', description: "The store quote method and the seller's quote endpoint" },
  { name: 'storefront', description: 'What the marketplace storefront calls: quotes and checkout' },
  { name: 'platform', description: 'Health' },
  { name: 'admin', description: 'The marketplace operator (admin token)' },
];

const FEIRA_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32"><rect width="32" height="32" rx="6" fill="#0b6e4f"/><path d="M9 8h14v4H14v3h8v4h-8v6H9z" fill="#fff"/><text x="40" y="23" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff">Feira</text></svg>`;

/** `/docs`: Swagger UI 5 (renders the OpenAPI 3.1 `webhooks` section), served from the package itself (no CDN), with Feira's name. */
export const docsPageOptions: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  logo: { type: 'image/svg+xml', content: Buffer.from(FEIRA_LOGO), href: '/docs', target: '_self' },
  theme: {
    title: 'Feira API',
    css: [
      {
        filename: 'feira.css',
        content: '.swagger-ui .topbar { background-color: #0b6e4f; } .swagger-ui .info .title { color: #0b6e4f; }',
      },
    ],
  },
  uiConfig: { docExpansion: 'list', deepLinking: true, displayOperationId: true },
};

/** `GET /openapi.json`: the document the swagger plugin builds from the routes' schemas. */
export async function openapiJsonRoute(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
