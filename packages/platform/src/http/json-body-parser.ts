import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseField } from '../core/refusals.js';

/**
 * The first key that appears twice in one object of a JSON text, or null.
 * Only called on text JSON.parse accepted, so the scan can be simple: strings
 * are skipped whole (escapes included), a string right after `{` or after a
 * `,` inside an object is a key, and keys are compared decoded (`"\u0061"` is
 * `"a"`). One linear pass, no recursion (a deeply nested body cannot overflow it).
 */
export function firstDuplicateKey(text: string): string | null {
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      if (expectKey) {
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        const keys = stack[stack.length - 1] as Set<string>;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      stack.push(null);
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = stack[stack.length - 1] != null;
    }
  }
  return null;
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * The JSON body parser of the whole app, on top of Fastify's own
 * (which refuses `__proto__` and `constructor.prototype` keys):
 * - a `charset` other than UTF-8 is a 415 (RFC 8259 §8.1: JSON exchanged
 *   between systems is UTF-8; a latin1 body decoded as UTF-8 is not what was sent);
 * - a key given twice in one object is a 400 naming it (RFC 8259 §4: names
 *   SHOULD be unique; JSON.parse silently keeps the last one, so a validator
 *   and a handler could read different values).
 * Also drops Fastify's text/plain parser: no route takes text, and a text body
 * reached the schema as a string (a 422) while a form body was a 415.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const defaultParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(refuseField('HTTP_JSON_NOT_UTF8', 'content-type', 'header', { charset }), undefined);
      return;
    }
    defaultParser(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const duplicate = firstDuplicateKey(body as string);
      if (duplicate !== null) return done(refuseField('HTTP_JSON_KEY_REPEATED', duplicate, 'body'), undefined);
      done(null, value);
    });
  });
}
