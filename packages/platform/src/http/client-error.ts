import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Random } from '../core/random.js';
import { refuse } from '../core/refusals.js';

/** Node's parser errors that have an answer of their own; every other one is `HTTP_NOT_HTTP`, a 400. */
const CODE_OF_PARSER_ERROR: Record<string, 'HTTP_HEADERS_TOO_LARGE' | 'HTTP_REQUEST_TIMEOUT'> = {
  HPE_HEADER_OVERFLOW: 'HTTP_HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP_REQUEST_TIMEOUT',
};

/**
 * Answers a request Node's HTTP parser refused before any route saw it (a
 * 20 kB query is a 431 there, a malformed request line a 400) in the platform
 * error shape, with the headers every answer carries (spec-notes L9). Node's
 * default is a bare status line with an empty body. Used as Fastify's
 * `clientErrorHandler` and on the server `feira start` listens with.
 */
export function clientErrorHandler(random: Pick<Random, 'uuid'>) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const known = refuse(CODE_OF_PARSER_ERROR[error.code ?? ''] ?? 'HTTP_NOT_HTTP');
    const body = JSON.stringify({ message: known.message, slug: known.slug, details: [], request_id: random.uuid() });
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(
      [
        `HTTP/1.1 ${known.statusCode} ${STATUS_CODES[known.statusCode]}`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        'x-content-type-options: nosniff',
        'cache-control: no-store',
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  };
}
