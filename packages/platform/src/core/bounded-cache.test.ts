import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most its size, dropping the oldest inserted entry first', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c'), cache.size]).toEqual([2, 3, 2]);
  });

  it('replacing an existing key evicts nothing', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    expect([cache.get('a'), cache.get('b')]).toEqual([10, 2]);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
  });
});
