/**
 * A bound on password checks running at once in this process (docs/decisions.md
 * D25). Each scrypt check holds a libuv thread and 32 MiB of memory; past
 * the bound a login is answered 429 with `Retry-After` instead of queueing
 * work that lets a burst of logins take the CPU and the thread pool (which
 * file and DNS work share). The default covers libuv's 4 threads twice over.
 */
const DEFAULT_MAX_CONCURRENT_PASSWORD_CHECKS = 8;

export class PasswordCheckGate {
  #inFlight = 0;

  constructor(readonly limit = DEFAULT_MAX_CONCURRENT_PASSWORD_CHECKS) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  /** A release function when a check may start now, else null. */
  tryEnter(): (() => void) | null {
    if (this.#inFlight >= this.limit) return null;
    this.#inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
    };
  }
}
