import type { ErrorDetail, PlatformErrorBody } from '@feira/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from './platform-error.js';

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

export function validationDetails(error: FastifyError): ErrorDetail[] {
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

/**
 * Turns every error into the platform error shape (SPEC-DECISIONS L9).
 * Anything unknown becomes a 500 with the request id and no internals.
 */
export function platformErrorHandler(
  error: FastifyError | PlatformError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof PlatformError) {
    reply.headers(error.headers);
    return reply.code(error.statusCode).send(body(request, error.message, error.slug, error.details));
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return reply.code(422).send(body(request, 'Unprocessable entity', 'UNPROCESSABLE_ENTITY', validationDetails(fastifyError)));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply
        .code(400)
        .send(
          body(request, 'Bad request', 'BAD_REQUEST', [
            { field: '(body)', location: 'body', message: 'is not valid JSON', slug: 'INVALID_PARAMETER_VALUE' },
          ]),
        );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply.code(413).send(
        body(request, 'Payload too large', 'PAYLOAD_TOO_LARGE', [
          {
            field: '(body)',
            location: 'body',
            message: `is larger than ${request.server.initialConfig.bodyLimit} bytes`,
            slug: 'INVALID_PARAMETER_VALUE',
          },
        ]),
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return reply.code(415).send(body(request, 'Unsupported media type', 'UNSUPPORTED_MEDIA_TYPE'));
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return reply.code(status).send(body(request, fastifyError.message, 'BAD_REQUEST'));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(body(request, 'Internal server error', 'INTERNAL_ERROR'));
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler(platformErrorHandler);
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(body(request, `Route ${request.method} ${request.url.split('?')[0]} not found`, 'NOT_FOUND')),
  );
}
