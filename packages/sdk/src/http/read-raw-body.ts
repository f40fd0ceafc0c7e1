import type { IncomingMessage } from 'node:http';

/** 1 MiB: far above any webhook message or quote request the platform sends. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Thrown when a body exceeds its limit; adapters answer 413. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * Reads a request body as the exact bytes sent: signatures cover bytes, and a
 * body re-serialized from a parsed object would not verify.
 */
export async function readRawBody(request: IncomingMessage, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > maxBytes) {
      request.resume();
      throw new BodyTooLargeError(`The body exceeds ${maxBytes} bytes.`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
