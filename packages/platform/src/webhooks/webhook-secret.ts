import { WEBHOOK_SECRET_PREFIX } from '@feira/contract';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';

/** Spec "Limits": the previous v1 secret keeps signing for 1 hour after a new signup. */
const SECRET_GRACE_MS = 60 * 60 * 1000;

/** spec-notes W2: `whsec_` + 32 random bytes in base64, the form Standard Webhooks libraries decode (W10). */
export function generateWebhookSecret(random: Random): string {
  return WEBHOOK_SECRET_PREFIX + random.bytes(32).toString('base64');
}

export interface SealedSecrets {
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_grace_until: string | null;
}

/**
 * A v1 signup on an existing subscription (spec "States and transitions"):
 * the new secret becomes current, the current one signs too until
 * graceUntil = now + 1 h. Only the newest two are kept: a third signup during
 * the grace hour drops the oldest at once, so a header never carries more
 * than two signatures (spec "Signature" rule 3: new first, old second).
 */
export function rotateSecret(current: SealedSecrets | null, newSealed: string, now: Date): SealedSecrets {
  if (!current?.secret_sealed) {
    return { secret_sealed: newSealed, previous_secret_sealed: null, previous_secret_grace_until: null };
  }
  return {
    secret_sealed: newSealed,
    previous_secret_sealed: current.secret_sealed,
    previous_secret_grace_until: new Date(now.getTime() + SECRET_GRACE_MS).toISOString(),
  };
}

/** The longest a seller may keep the previous secret signing after a rotation from the console (D64). */
export const MAX_CHOSEN_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * A rotation the seller asks for in the console (D64): the new secret becomes
 * current, and the secret receivers verify with keeps signing for the grace
 * the seller chose (0 to 24 h). When an earlier rotation's grace is still
 * running, that earlier (original) secret is the one receivers still hold:
 * it keeps signing until its grace ends as chosen then, and the secret issued
 * in between, which no receiver verified with for long, is dropped. A header
 * never carries more than two signatures.
 */
export function rotateSecretWithGrace(current: SealedSecrets, newSealed: string, now: Date, graceMs: number): SealedSecrets {
  if (!current.secret_sealed)
    return { secret_sealed: newSealed, previous_secret_sealed: null, previous_secret_grace_until: null };
  const graceRunning =
    current.previous_secret_sealed &&
    current.previous_secret_grace_until &&
    current.previous_secret_grace_until > now.toISOString();
  if (graceRunning) {
    return {
      secret_sealed: newSealed,
      previous_secret_sealed: current.previous_secret_sealed,
      previous_secret_grace_until: current.previous_secret_grace_until,
    };
  }
  const grace = Math.max(0, Math.min(MAX_CHOSEN_GRACE_MS, graceMs));
  return grace === 0
    ? { secret_sealed: newSealed, previous_secret_sealed: null, previous_secret_grace_until: null }
    : {
        secret_sealed: newSealed,
        previous_secret_sealed: current.secret_sealed,
        previous_secret_grace_until: new Date(now.getTime() + grace).toISOString(),
      };
}

/** The secrets that sign a delivery made at `now`, newest first; empty for v0. */
export function signingSecrets(row: SealedSecrets, box: Pick<SecretBox, 'open'>, now: Date): string[] {
  if (!row.secret_sealed) return [];
  const secrets = [box.open(row.secret_sealed)];
  if (row.previous_secret_sealed && row.previous_secret_grace_until && now.toISOString() < row.previous_secret_grace_until) {
    secrets.push(box.open(row.previous_secret_sealed));
  }
  return secrets;
}
