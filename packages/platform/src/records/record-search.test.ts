import { describe, expect, it } from 'vitest';
import { prefixEnd, RECORD_SEARCH_MAX_LENGTH, recordSearchTerm } from './record-search.js';

describe('record search terms and prefix ranges (D155)', () => {
  it('D155: a prefix range ends at the prefix with its last code point one higher, past the surrogates and the last code point', () => {
    expect(prefixEnd('FE-1')).toBe('FE-2');
    expect(prefixEnd('a\u{d7ff}')).toBe('a\u{e000}');
    expect(prefixEnd('a\u{1f600}')).toBe('a\u{1f601}');
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    expect(prefixEnd('\u{10ffff}')).toBeNull();
    // Every string that starts with the prefix sorts below the end, in code-point order.
    for (const prefix of ['FE-1', 'ação', 'a\u{ffff}']) {
      const end = prefixEnd(prefix) as string;
      for (const tail of ['', '\u0000', 'z', '\u{ffff}', '\u{10ffff}\u{10ffff}']) {
        expect(Buffer.compare(Buffer.from(prefix + tail), Buffer.from(end))).toBe(-1);
      }
    }
  });

  it('D155: a term is trimmed and bounded; empty, too long, control characters and half surrogate pairs are refused', () => {
    expect(recordSearchTerm('  FE-0001 ')).toBe('FE-0001');
    expect(recordSearchTerm('x'.repeat(RECORD_SEARCH_MAX_LENGTH))).toHaveLength(RECORD_SEARCH_MAX_LENGTH);
    for (const bad of ['', '   ', 'x'.repeat(RECORD_SEARCH_MAX_LENGTH + 1), 'a\u0000b', 'a\nb', 'a\u{d800}', 'a\u{dc00}b', 42]) {
      expect(recordSearchTerm(bad)).toBeNull();
    }
    expect(recordSearchTerm('😀')).toBe('😀');
  });
});
