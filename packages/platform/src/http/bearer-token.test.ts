import { describe, expect, it } from 'vitest';
import { bearerToken, bearerTokenMatches } from './bearer-token.js';

describe('bearer credentials', () => {
  it('spec-notes I3 / RFC 6750 §2.1: reads the token68 after the scheme, whatever its case and however many spaces', () => {
    expect(bearerToken('Bearer abc.DEF-123_~+/==')).toBe('abc.DEF-123_~+/==');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER abc')).toBe('abc');
    expect(bearerToken('Bearer   abc')).toBe('abc');
  });

  it('spec-notes I3 / RFC 6750 §2.1: anything that is not "Bearer" 1*SP token68 has no token', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearerabc',
      'Basic abc',
      'Bearer abc def',
      'Bearer abc,',
      'Bearer "abc"',
      'Bearer a=b',
      'Bearer =abc',
      'Bearer\tabc',
      ' Bearer abc',
    ]) {
      expect(bearerToken(header), JSON.stringify(header)).toBeUndefined();
    }
  });

  it('matches only the expected secret, and never a malformed header that contains it', () => {
    expect(bearerTokenMatches('bearer s3cret-token', 's3cret-token')).toBe(true);
    expect(bearerTokenMatches('Bearer s3cret-token', 's3cret-tokem')).toBe(false);
    expect(bearerTokenMatches('Bearer s3cret-token x', 's3cret-token')).toBe(false);
    expect(bearerTokenMatches(undefined, 's3cret-token')).toBe(false);
  });
});
