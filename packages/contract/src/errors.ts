import { type Static, Type } from '@sinclair/typebox';

/**
 * The platform error shape. The spec shows it for the v1 webhook URL rejection;
 * spec-notes L9 makes it the shape of every platform API error.
 */
export const ErrorDetail = Type.Object({
  field: Type.String(),
  location: Type.String({ description: '`body`, `query`, `path` or `header`' }),
  message: Type.String(),
  slug: Type.String(),
});
export type ErrorDetail = Static<typeof ErrorDetail>;

export const PlatformErrorBody = Type.Object(
  {
    message: Type.String(),
    slug: Type.String(),
    details: Type.Array(ErrorDetail),
    request_id: Type.Optional(Type.String()),
  },
  { $id: 'PlatformError' },
);
export type PlatformErrorBody = Static<typeof PlatformErrorBody>;

/** Slugs of the platform error shape and the HTTP status each maps to. */
export const ERROR_SLUGS = {
  BAD_REQUEST: { status: 400, message: 'Bad request' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
  CONFLICT: { status: 409, message: 'Conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large' },
  URI_TOO_LONG: { status: 414, message: 'URI too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported media type' },
  UNPROCESSABLE_ENTITY: { status: 422, message: 'Unprocessable entity' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests' },
  /** An app over its API rate limit for a store (spec-notes I20): `Retry-After` says when to try again. */
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, message: 'Request header fields too large' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service unavailable' },
} as const;
export type ErrorSlug = keyof typeof ERROR_SLUGS;
