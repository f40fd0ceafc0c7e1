import { ERROR_SLUGS, type ErrorDetail, type ErrorSlug } from '@feira/contract';

/**
 * The one error class of the platform APIs (spec-notes L9). `slug` narrows
 * in a switch and decides the HTTP status; the error handler renders it as
 * `{message, slug, details[]}`. Never put a token, secret or password in it.
 * It is built by core/refusals.ts from a code of the catalogue, and nowhere
 * else (refusals.test.ts).
 */
export class PlatformError extends Error {
  readonly slug: ErrorSlug;
  readonly statusCode: number;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(slug: ErrorSlug, options: { message?: string; details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    // A refusal (4xx) is an answer, not a fault: no stack is captured for it, which is most of what
    // constructing an Error costs, and a flood of refusals is answered with less work. Faults keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    if (ERROR_SLUGS[slug].status < 500) Error.stackTraceLimit = 0;
    try {
      super(options.message ?? ERROR_SLUGS[slug].message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'PlatformError';
    this.slug = slug;
    this.statusCode = ERROR_SLUGS[slug].status;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }
}
