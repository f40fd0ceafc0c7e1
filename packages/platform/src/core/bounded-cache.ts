/**
 * A Map that keeps at most `size` entries, dropping the oldest inserted first
 * (a Map iterates in insertion order). For in-memory caches of pure results
 * (prepared statements, verified tokens, opened secrets) whose keys are
 * unbounded in principle but few in practice.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #size: number;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`cache size must be a positive integer, got ${size}`);
    this.#size = size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.#size) {
      this.#entries.delete(this.#entries.keys().next().value as K);
    }
    this.#entries.set(key, value);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  values(): IterableIterator<V> {
    return this.#entries.values();
  }

  get size(): number {
    return this.#entries.size;
  }
}
