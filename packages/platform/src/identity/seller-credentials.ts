import { findSellerByLogin } from '../accounts/index.js';
import { verifyPassword } from '../core/hashing.js';
import { reserveAttempt, settleAttempt } from './attempt-throttle.js';
import type { IdentityServices } from './identity-services.js';
import { loginThrottleKeys } from './login-throttle.js';

// Checked when the login is unknown, so an unknown login costs as much time as a wrong password.
const DUMMY_PASSWORD_HASH = 'scrypt$32768$8$1$ZmVpcmEtZHVtbXktc2FsdA$4yMZC4XYGj4f9PQQ6aeRPihoR3gPn9hwM6mGfGbUXdk';

export type CredentialCheck =
  | { kind: 'ok'; seller: { id: string } }
  | { kind: 'wrong' }
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'busy'; retryAfterSeconds: number };

/**
 * A seller's login and password, checked once for every sign-in form (the
 * identity provider's login page and the console), from the client's address:
 * the attempt is reserved in the throttle before the password is hashed (so
 * parallel guesses cannot outrun the count), the number of hashes at once is
 * capped, and an unknown login costs as much as a wrong password.
 */
export async function checkCredentials(
  deps: Pick<IdentityServices, 'database' | 'clock' | 'passwordChecks'>,
  attempt: { login: string; password: string; address: string },
): Promise<CredentialCheck> {
  const { database, clock } = deps;
  const { login, password } = attempt;
  const reservation = await reserveAttempt(database.db, loginThrottleKeys(login, attempt.address), clock.now());
  if (!reservation.admitted) return { kind: 'throttled', retryAfterSeconds: reservation.retryAfterSeconds };
  const release = deps.passwordChecks.tryEnter();
  if (!release) {
    await settleAttempt(database.db, reservation, 'unchecked', clock.now());
    return { kind: 'busy', retryAfterSeconds: 1 };
  }
  let seller: Awaited<ReturnType<typeof findSellerByLogin>>;
  let passwordOk: boolean;
  try {
    seller = await findSellerByLogin(database.db, login);
    passwordOk = await verifyPassword(password, seller?.passwordHash ?? DUMMY_PASSWORD_HASH);
  } catch (error) {
    await settleAttempt(database.db, reservation, 'unchecked', clock.now());
    throw error;
  } finally {
    release();
  }
  if (!seller || !passwordOk) {
    await settleAttempt(database.db, reservation, 'failure', clock.now());
    return { kind: 'wrong' };
  }
  await settleAttempt(database.db, reservation, 'success', clock.now());
  return { kind: 'ok', seller: { id: seller.id } };
}
