import type { ThrottleKey, ThrottlePolicy } from './attempt-throttle.js';
import { throttleAddress } from './throttle-address.js';

/**
 * The throttle of `POST /login`, reserved
 * before the password is hashed (identity/attempt-throttle.ts):
 * - per login name, known or not (so the answer does not reveal which logins
 *   exist): 5 attempts in flight or failed per minute, and from the third
 *   consecutive failure a back-off that doubles up to 15 minutes;
 * - per client address: 30 attempts in flight or failed per minute, whatever
 *   the login, so one address cannot spray guesses over many accounts (an
 *   IPv6 /64 counts as one address, see throttle-address.ts).
 * A successful login gives its reservations back and clears the account's failures.
 */
export const LOGIN_ACCOUNT_POLICY: ThrottlePolicy = {
  allowance: 5,
  windowSeconds: 60,
  backoff: { freeFailures: 3, maxBlockSeconds: 15 * 60 },
};
export const LOGIN_ADDRESS_POLICY: ThrottlePolicy = { allowance: 30, windowSeconds: 60 };

/** The keys a login attempt reserves, account first: a blocked account does not use up its address's allowance. */
export function loginThrottleKeys(login: string, address: string): ThrottleKey[] {
  return [
    { key: `login:${login}`, policy: LOGIN_ACCOUNT_POLICY },
    { key: `login-address:${throttleAddress(address)}`, policy: LOGIN_ADDRESS_POLICY },
  ];
}
