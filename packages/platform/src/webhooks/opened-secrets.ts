import { BoundedCache } from '../core/bounded-cache.js';
import type { SecretBox } from '../core/secret-box.js';

/**
 * Webhook secrets opened once and kept in memory, keyed by their sealed text:
 * a delivery used to decrypt its subscription's secret (AES-GCM) on every
 * send, visible in the dispatcher's CPU profile of a backlog drain (docs/decisions.md D13).
 * A rotation seals a new secret, so a new key, and the old entry just ages
 * out. Bounded: past `max` entries the oldest is dropped.
 */
export class OpenedSecrets {
  readonly #box: Pick<SecretBox, 'open'>;
  readonly #opened: BoundedCache<string, string>;

  constructor(box: Pick<SecretBox, 'open'>, max = 10_000) {
    this.#box = box;
    this.#opened = new BoundedCache(max);
  }

  /** Throws as `SecretBox.open` does when the sealed text cannot be opened (e.g. the server key changed). */
  open(sealed: string): string {
    let secret = this.#opened.get(sealed);
    if (secret === undefined) {
      secret = this.#box.open(sealed);
      this.#opened.set(sealed, secret);
    }
    return secret;
  }
}
