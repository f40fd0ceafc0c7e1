import { ERROR_SLUGS, type ErrorDetail, type ErrorSlug, type PlatformErrorBody } from '@feira/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/database-errors.js';

const LOCATIONS: Record<string, ErrorDetail['location']> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/customer/id` + missingProperty → `customer.id`: the dotted name the spec uses for nested fields. */
function fieldOf(issue: AjvIssue): string {
  const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean);
  const extra = (issue.params.missingProperty as string | undefined) ?? (issue.params.additionalProperty as string | undefined);
  if (extra) path.push(extra);
  return path.join('.') || '(root)';
}

function slugOf(issue: AjvIssue): string {
  if (issue.keyword === 'required') return 'MISSING_PARAMETER';
  if (issue.keyword === 'additionalProperties') return 'UNKNOWN_PARAMETER';
  return 'INVALID_PARAMETER_VALUE';
}

function validationDetails(error: FastifyError): ErrorDetail[] {
  const location = LOCATIONS[error.validationContext ?? 'body'] ?? 'body';
  const issues = (error.validation ?? []) as unknown as AjvIssue[];
  return issues.map((issue) => ({
    field: fieldOf(issue),
    location,
    message:
      issue.keyword === 'additionalProperties'
        ? 'is not a known field'
        : issue.keyword === 'required'
          ? 'is required'
          : (issue.message ?? 'is invalid'),
    slug: slugOf(issue),
  }));
}

function body(request: FastifyRequest, message: string, slug: string, details: ErrorDetail[] = []): PlatformErrorBody {
  return { message, slug, details, request_id: String(request.id) };
}

/** A refusal Fastify raises before a route runs, in the platform error shape with the one detail that names what was wrong. */
interface FrameworkRefusal {
  status: number;
  message: string;
  slug: string;
  detail: { field: string; location: ErrorDetail['location']; message: string | ((request: FastifyRequest) => string) };
}

const INVALID_JSON: FrameworkRefusal = {
  status: 400,
  message: 'Bad request',
  slug: 'BAD_REQUEST',
  detail: { field: '(body)', location: 'body', message: 'is not valid JSON' },
};
const UNSUPPORTED_MEDIA_TYPE: FrameworkRefusal = {
  status: 415,
  message: 'Unsupported media type',
  slug: 'UNSUPPORTED_MEDIA_TYPE',
  detail: { field: 'content-type', location: 'header', message: 'must be application/json (or a form on the identity pages)' },
};

/** Fastify's own error codes, each answered in the uniform shape (spec-notes L9), one table instead of a case per code. */
const FRAMEWORK_REFUSALS: Record<string, FrameworkRefusal> = {
  FST_ERR_CTP_INVALID_JSON_BODY: INVALID_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: INVALID_JSON,
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    message: 'Payload too large',
    slug: 'PAYLOAD_TOO_LARGE',
    detail: {
      field: '(body)',
      location: 'body',
      message: (request) => `is larger than ${request.server.initialConfig.bodyLimit} bytes`,
    },
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_BAD_URL: {
    status: 400,
    message: 'Bad request',
    slug: 'BAD_REQUEST',
    detail: { field: '(path)', location: 'path', message: 'is not a valid URL component' },
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    message: 'URI too long',
    slug: 'URI_TOO_LONG',
    detail: { field: '(path)', location: 'path', message: 'has a segment longer than the server accepts' },
  },
};

/**
 * Turns every error into the platform error shape (spec-notes L9).
 * Anything unknown becomes a 500 with the request id and no internals.
 */
export function platformErrorHandler(
  error: FastifyError | PlatformError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof PlatformError) {
    reply.headers(error.headers);
    // Every 503 says when to come back (RFC 9110 §10.2.3, http/service-unavailable.ts).
    if (error.statusCode === 503 && !reply.hasHeader('retry-after'))
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return reply.code(error.statusCode).send(body(request, error.message, error.slug, error.details));
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return reply.code(422).send(body(request, 'Unprocessable entity', 'UNPROCESSABLE_ENTITY', validationDetails(fastifyError)));
  }
  const refusal = fastifyError.code ? FRAMEWORK_REFUSALS[fastifyError.code] : undefined;
  if (refusal) {
    const { status, message, slug, detail } = refusal;
    const detailMessage = typeof detail.message === 'function' ? detail.message(request) : detail.message;
    return reply
      .code(status)
      .send(
        body(request, message, slug, [
          { field: detail.field, location: detail.location, message: detailMessage, slug: 'INVALID_PARAMETER_VALUE' },
        ]),
      );
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // The slug of this status when the contract has one (e.g. 405, 408), else the generic 400 slug.
    const slug = (Object.keys(ERROR_SLUGS) as ErrorSlug[]).find((s) => ERROR_SLUGS[s].status === status) ?? 'BAD_REQUEST';
    return reply.code(status).send(body(request, ERROR_SLUGS[slug].message, slug));
  }
  if (isDatabaseUnavailable(error)) {
    // The database is down, restarting or cut off: the request may succeed once it is back, so say when to retry.
    // Code and message only: the request's own values have no place in this line.
    const { code, message } = error as { code?: unknown; message?: unknown };
    request.log.warn({ err: { code, message: String(message) } }, 'database unavailable');
    return reply
      .code(503)
      .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
      .send(body(request, 'The database is unavailable; retry later', 'SERVICE_UNAVAILABLE'));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(body(request, 'Internal server error', 'INTERNAL_ERROR'));
}

/**
 * The error handler and the not-found one. With `routeMethods`, a real path asked with a
 * method it does not answer is `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6), not 404,
 * and OPTIONS is `204` with that `Allow`.
 */
export function installErrorHandlers(app: FastifyInstance, routeMethods?: { allowed(url: string): string[] }): void {
  app.setErrorHandler(platformErrorHandler);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = routeMethods?.allowed(request.url) ?? [];
    // RFC 9110 §9.3.7: OPTIONS without a CORS preflight (no Origin) asks what the path answers: 204 with Allow (D109).
    if (allowed.length > 0 && request.method === 'OPTIONS') return reply.code(204).header('allow', allowed.join(', ')).send();
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(
          body(
            request,
            `Route ${path} does not answer ${request.method}; it answers ${allowed.join(', ')}`,
            'METHOD_NOT_ALLOWED',
          ),
        );
    }
    return reply.code(404).send(body(request, `Route ${request.method} ${path} not found`, 'NOT_FOUND'));
  });
}
