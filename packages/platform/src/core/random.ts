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
