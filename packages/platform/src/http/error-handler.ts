import { ERROR_SLUGS, type ErrorDetail, type ErrorSlug, type PlatformErrorBody } from '@feira/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { refuse, refuseDetails, refuseField } from '../core/refusals.js';
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

const bodyNotJson = () => refuseField('HTTP_BODY_NOT_JSON', '(body)', 'body');
const mediaTypeUnsupported = () => refuseField('HTTP_MEDIA_TYPE_UNSUPPORTED', 'content-type', 'header');

/** Fastify's own error codes, each answered by a refusal of the catalogue in the uniform shape (spec-notes L9). */
const FRAMEWORK_REFUSALS: Record<string, (request: FastifyRequest) => PlatformError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: bodyNotJson,
  FST_ERR_CTP_EMPTY_JSON_BODY: bodyNotJson,
  FST_ERR_CTP_BODY_TOO_LARGE: (request) =>
    refuseField('HTTP_BODY_TOO_LARGE', '(body)', 'body', { limit: request.server.initialConfig.bodyLimit ?? 0 }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: mediaTypeUnsupported,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: mediaTypeUnsupported,
  FST_ERR_BAD_URL: () => refuseField('HTTP_URL_MALFORMED', '(path)', 'path'),
  FST_ERR_MAX_PARAM_LENGTH: () => refuseField('HTTP_PATH_SEGMENT_TOO_LONG', '(path)', 'path'),
};

/** A refusal of the catalogue, with its headers, in the platform error shape. */
function sendRefusal(error: PlatformError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.headers(error.headers);
  // Every 503 says when to come back (RFC 9110 §10.2.3, http/service-unavailable.ts).
  if (error.statusCode === 503 && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  return reply.code(error.statusCode).send(body(request, error.message, error.slug, error.details));
}

/**
 * Turns every error into the platform error shape (spec-notes L9).
 * Anything unknown becomes a 500 with the request id and no internals.
 */
export function platformErrorHandler(
  error: FastifyError | PlatformError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof PlatformError) return sendRefusal(error, request, reply);
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return sendRefusal(refuseDetails('HTTP_SCHEMA_REFUSED', validationDetails(fastifyError)), request, reply);
  }
  const refusal = fastifyError.code ? FRAMEWORK_REFUSALS[fastifyError.code] : undefined;
  if (refusal) return sendRefusal(refusal(request), request, reply);
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // A status Fastify raises that the table above does not name (e.g. 405, 408): the slug of that status when the
    // contract has one, else the generic 400 slug.
    const slug = (Object.keys(ERROR_SLUGS) as ErrorSlug[]).find((s) => ERROR_SLUGS[s].status === status) ?? 'BAD_REQUEST';
    return reply.code(status).send(body(request, ERROR_SLUGS[slug].message, slug));
  }
  if (isDatabaseUnavailable(error)) {
    // The database is down, restarting or cut off: the request may succeed once it is back, so say when to retry.
    // Code and message only: the request's own values have no place in this line.
    const { code, message } = error as { code?: unknown; message?: unknown };
    request.log.warn({ err: { code, message: String(message) } }, 'database unavailable');
    return sendRefusal(refuse('HTTP_DATABASE_UNAVAILABLE', { retryAfter: DATABASE_RETRY_AFTER_SECONDS }), request, reply);
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(body(request, ERROR_SLUGS.INTERNAL_ERROR.message, 'INTERNAL_ERROR'));
}

/**
 * The error handler and the not-found one. With `routeMethods`, a real path asked with a
 * method it does not answer is `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6), not 404,
 * and OPTIONS is `204` with that `Allow`.
 */
export function installErrorHandlers(app: FastifyInstance, routeMethods?: { allowed(url: string): string[] }): void {
  app.setErrorHandler(platformErrorHandler);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routeMethods?.allowed(request.url) ?? [];
    // RFC 9110 §9.3.7: OPTIONS without a CORS preflight (no Origin) asks what the path answers: 204 with Allow (D109).
    if (allowed.length > 0 && request.method === 'OPTIONS') return reply.code(204).header('allow', allowed.join(', ')).send();
    if (allowed.length > 0) {
      return sendRefusal(
        refuse('HTTP_METHOD_NOT_ALLOWED', { path, method: request.method, allowed: allowed.join(', ') }),
        request,
        reply,
      );
    }
    return sendRefusal(refuse('HTTP_ROUTE_NOT_FOUND', { method: request.method, path }), request, reply);
  });
}
