import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Random } from '../core/random.js';

/** Node's parser errors that have an answer of their own; every other one is a 400. */
const STATUS_BY_CODE: Record<string, { status: number; slug: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    slug: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    message: 'The request line and headers are larger than the server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, slug: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time' },
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
    const known = STATUS_BY_CODE[error.code ?? ''] ?? {
      status: 400,
      slug: 'BAD_REQUEST',
      message: 'The request is not valid HTTP',
    };
    const body = JSON.stringify({ message: known.message, slug: known.slug, details: [], request_id: random.uuid() });
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(
      [
        `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}`,
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
