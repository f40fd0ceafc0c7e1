import { describe, expect, it } from 'vitest';
import { cryptoRandom, randomToken } from '../core/random.js';
import { CSRF_TOKEN_BYTES, MASKED_CSRF_LENGTH, maskCsrfToken, maskedCsrfMatches } from './csrf-mask.js';

describe('CSRF token masking (BREACH, D98)', () => {
  const token = randomToken(cryptoRandom, CSRF_TOKEN_BYTES);

  it('D98: each masking of the same token is different bytes of one length, none holding the token, and each unmasks to it', () => {
    const masked = Array.from({ length: 20 }, () => maskCsrfToken(token, cryptoRandom));
    expect(new Set(masked).size).toBe(masked.length);
    for (const m of masked) {
      expect(m).toHaveLength(MASKED_CSRF_LENGTH);
      expect(m).not.toContain(token.slice(0, 8));
      expect(maskedCsrfMatches(m, token)).toBe(true);
    }
  });

  it("D98: refused: another session's token, a changed byte, the bare token, a wrong length, no cookie, not a string", () => {
    const masked = maskCsrfToken(token, cryptoRandom);
    const other = randomToken(cryptoRandom, CSRF_TOKEN_BYTES);
    expect(maskedCsrfMatches(maskCsrfToken(other, cryptoRandom), token)).toBe(false);
    const i = 60;
    expect(maskedCsrfMatches(`${masked.slice(0, i)}${masked[i] === 'A' ? 'B' : 'A'}${masked.slice(i + 1)}`, token)).toBe(false);
    expect(maskedCsrfMatches(token, token)).toBe(false);
    expect(maskedCsrfMatches(`${masked}AA`, token)).toBe(false);
    expect(maskedCsrfMatches(masked.slice(2), token)).toBe(false);
    expect(maskedCsrfMatches(`${masked.slice(0, -1)}=`, token)).toBe(false);
    expect(maskedCsrfMatches(masked, null)).toBe(false);
    expect(maskedCsrfMatches(undefined, token)).toBe(false);
    expect(maskedCsrfMatches(['x'], token)).toBe(false);
  });
});
