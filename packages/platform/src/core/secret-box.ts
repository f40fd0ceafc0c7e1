import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets the platform must read back (signing keys,
 * webhook secrets: spec-notes W2, I4). AES-256-GCM; the key is derived from
 * the server's secret key. Output: `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(serverSecret: string) {
    if (serverSecret.length < 16) throw new Error('server secret key must be at least 16 characters');
    this.#key = createHash('sha256').update(`feira-secret-box:${serverSecret}`).digest();
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('malformed sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
