import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseField } from '../core/refusals.js';

const NUL = '\u0000';

/** A place in a parsed request part: its key and its parent, so a path is built only when one is reported. */
interface Place {
  key: string;
  parent: Place | null;
}

function pathOf(place: Place | null, last?: string): string {
  const keys = last === undefined ? [] : [last];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.') || '(root)';
}

/**
 * The dotted path of the first string (value or key) holding U+0000 in a
 * parsed request part, or null. Iterative and linear in the size of the part,
 * so a body nested as deep as the size limit allows neither overflows the
 * stack nor costs more than one pass.
 */
export function findNul(value: unknown): string | null {
  const stack: Array<[unknown, Place | null]> = [[value, null]];
  while (stack.length > 0) {
    const [item, place] = stack.pop() as [unknown, Place | null];
    if (typeof item === 'string') {
      if (item.includes(NUL)) return pathOf(place);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], { key: String(i), parent: place }]);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (key.includes(NUL)) return pathOf(place, key);
        stack.push([child, { key, parent: place }]);
      }
    }
  }
  return null;
}

const PARTS: Array<[keyof Pick<FastifyRequest, 'params' | 'query' | 'body'>, 'path' | 'query' | 'body']> = [
  ['params', 'path'],
  ['query', 'query'],
  ['body', 'body'],
];

/**
 * Refuses U+0000 anywhere in a request's path parameters, query or body with
 * a 422 naming the field (spec-notes L9), before any route sees it.
 * PostgreSQL text cannot hold the character: binding it fails the query, which
 * was a 500 on every route that passes input to the database (found by the
 * list property test). SQLite would store it, so both databases refuse it here
 * alike. The token endpoint's own error handler turns the 422 into
 * `invalid_request` (RFC 6749 §5.2).
 */
export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // D78: params and query are decoded from the URL, where U+0000 can only be `%00` (Node's HTTP
    // parser refuses a raw one; an injected request may still hold one): a URL with neither leaves
    // nothing to find there, and a request without a body nothing in it.
    const encodedNul = request.url.includes('%00') || request.url.includes(NUL);
    for (const [part, location] of PARTS) {
      if (part === 'body' ? request.body === undefined : !encodedNul) continue;
      const field = findNul(request[part]);
      if (field !== null) throw refuseField('HTTP_NUL_CHARACTER', field, location);
    }
  });
}
