import { describe, expect, it } from 'vitest';
import { keptResponseHeaders, RESPONSE_HEADER_VALUE_LIMIT, RESPONSE_HEADERS_KEPT } from './response-headers.js';

const raw = (...pairs: string[]) => pairs.map((p) => Buffer.from(p));

describe("the receiver's answer headers kept in the delivery log", () => {
  it('keeps ordinary headers in order, names lower-cased, repeated names joined', () => {
    expect(
      keptResponseHeaders(raw('Content-Type', 'text/plain', 'X-Request-Id', 'abc', 'Vary', 'accept', 'vary', 'origin')),
    ).toEqual({ 'content-type': 'text/plain', 'x-request-id': 'abc', vary: 'accept, origin' });
  });

  it('never keeps credential-like headers: cookies, authorization, tokens, secrets, keys, sessions, signatures', () => {
    const kept = keptResponseHeaders(
      raw(
        'Set-Cookie',
        'sid=1',
        'Authorization',
        'Bearer x',
        'WWW-Authenticate',
        'Basic',
        'X-Auth-Token',
        't',
        'X-Api-Key',
        'k',
        'X-Session-Id',
        's',
        'X-Client-Secret',
        'c',
        'X-Signature',
        'g',
        'X-CSRF-Token',
        'f',
        'Server',
        'receiver',
      ),
    );
    expect(kept).toEqual({ server: 'receiver' });
  });

  it('is bounded: at most RESPONSE_HEADERS_KEPT names and RESPONSE_HEADER_VALUE_LIMIT characters a value, NUL made storable', () => {
    const many = Array.from({ length: RESPONSE_HEADERS_KEPT + 10 }, (_, i) => [`x-h${i}`, 'v']).flat();
    expect(Object.keys(keptResponseHeaders(raw(...many)) ?? {})).toHaveLength(RESPONSE_HEADERS_KEPT);
    const long = keptResponseHeaders(raw('x-long', 'a'.repeat(5000), 'x-nul', 'a\u0000b'));
    expect(long?.['x-long']).toHaveLength(RESPONSE_HEADER_VALUE_LIMIT);
    expect(long?.['x-nul']).toBe('a\ufffdb');
    expect(keptResponseHeaders(raw(`x-${'n'.repeat(100)}`, 'v'))).toEqual({});
  });

  it('is null when there was no answer', () => {
    expect(keptResponseHeaders(null)).toBeNull();
  });
});
