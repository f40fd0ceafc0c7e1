import { randomBytes, randomUUID } from 'node:crypto';

/** Randomness is injected so tests can make ids and secrets predictable when they need to. */
export interface Random {
  /** Cryptographically strong bytes. */
  bytes(length: number): Buffer;
  /** A UUID v4. */
  uuid(): string;
  /** A float in [0, 1), for jitter only (never for secrets). */
  fraction(): number;
}

export const cryptoRandom: Random = {
  bytes: (length) => randomBytes(length),
  uuid: () => randomUUID(),
  fraction: () => randomBytes(4).readUInt32BE(0) / 0x1_0000_0000,
};

/** base64url of `length` random bytes: tokens, codes, secrets. */
export function randomToken(random: Random, length = 32): string {
  return random.bytes(length).toString('base64url');
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits.
 * Ids made one after another sort together, so rows keyed by them are appended
 * to the end of their indexes instead of scattered over them: for the outbox
 * and the delivery table, written thousands of rows a second, that is fewer
 * pages touched per commit.
 */
export function timeOrderedUuid(random: Random, at: Date): string {
  const bytes = random.bytes(16);
  const ms = at.getTime();
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
