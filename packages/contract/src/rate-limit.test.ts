import { describe, expect, it } from 'vitest';
import { parseRateLimitHeader } from './rate-limit.js';

describe('RateLimit header (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('spec-notes I20: reads r and t of the platform policy "app", among other policies and parameters', () => {
    expect(parseRateLimitHeader('"app";r=42;t=6')).toEqual({ remaining: 42, resetSeconds: 6 });
    expect(parseRateLimitHeader('"proxy";r=1;t=1, "app";t=0;r=0;pk=:abc=:')).toEqual({ remaining: 0, resetSeconds: 0 });
  });

  it('spec-notes I20: absent, another policy only, or values that are not whole numbers read as nothing', () => {
    for (const value of [undefined, null, '', '"proxy";r=1;t=1', 'app;r=1;t=1', '"app";r=1.5;t=1', '"app";r=1']) {
      expect(parseRateLimitHeader(value), String(value)).toBeUndefined();
    }
  });
});
