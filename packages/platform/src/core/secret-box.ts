import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

interface BoxKey {
  /** Names the secret in what it sealed; derived from it by a separate hash (it reveals nothing of the key). */
  kid: string;
  key: Buffer;
}

function boxKey(serverSecret: string): BoxKey {
  if (serverSecret.length < 16) throw new Error('server secret key must be at least 16 characters');
  return {
    kid: createHash('sha256').update(`feira-secret-box-kid:${serverSecret}`).digest().subarray(0, 9).toString('base64url'),
    key: createHash('sha256').update(`feira-secret-box:${serverSecret}`).digest(),
  };
}

/**
 * Encryption at rest for secrets the platform must read back (signing keys,
 * webhook secrets, gateway credentials: spec-notes W2, I4). AES-256-GCM; the
 * key is derived from the server's secret key. Output:
 * `v2.<kid>.<iv>.<tag>.<ciphertext>` in base64url, where `kid` names the
 * secret that sealed it.
 *
 * The server secret rotates (docs/deploy.md "Rotating keys", D112): the box
 * seals with the first secret and opens with any of them, so a value sealed
 * under a previous secret keeps opening until the background re-seal
 * (storage/secret-reseal.ts) has sealed it again under the current one.
 * `v1.<iv>.<tag>.<ciphertext>`, written before sealed values named their
 * secret, opens under whichever of the secrets authenticates it.
 */
export class SecretBox {
  readonly #current: BoxKey;
  readonly #all: readonly BoxKey[];

  /** `previousSecrets`: secrets still accepted for opening, the current one excluded. */
  constructor(serverSecret: string, previousSecrets: readonly string[] = []) {
    this.#current = boxKey(serverSecret);
    this.#all = [this.#current, ...previousSecrets.map(boxKey).filter((k) => k.kid !== this.#current.kid)];
  }

  /** The name of the secret that seals. */
  get kid(): string {
    return this.#current.kid;
  }

  /** The names of the secrets still accepted for opening, the current one excluded. */
  get previousKids(): string[] {
    return this.#all.slice(1).map((k) => k.kid);
  }

  /** What every value sealed under the current secret starts with (the re-seal finds the others by it). */
  get currentPrefix(): string {
    return `v2.${this.#current.kid}.`;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v2', this.#current.kid, iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The secret's name a sealed value says it was sealed under (null for a `v1` value, which names none). */
  static kidOf(sealed: string): string | null {
    return sealed.startsWith('v2.') ? (sealed.split('.', 3)[1] ?? null) : null;
  }

  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v2') {
      const [, kid, iv, tag, ciphertext] = parts;
      if (parts.length !== 5 || !iv || !tag || ciphertext === undefined) throw new Error('malformed sealed secret');
      const key = this.#all.find((k) => k.kid === kid);
      if (!key) throw new Error('sealed under a server secret this process does not have (FEIRA_SECRET_KEY_PREVIOUS)');
      return decrypt(key.key, iv, tag, ciphertext);
    }
    const [version, iv, tag, ciphertext] = parts;
    if (version !== 'v1' || parts.length !== 4 || !iv || !tag || ciphertext === undefined)
      throw new Error('malformed sealed secret');
    let failure: unknown;
    for (const key of this.#all) {
      try {
        return decrypt(key.key, iv, tag, ciphertext);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
}

function decrypt(key: Buffer, iv: string, tag: string, ciphertext: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
