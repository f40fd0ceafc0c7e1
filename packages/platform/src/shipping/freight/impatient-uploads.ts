import type { FastifyRequest } from 'fastify';

/** Connections held at once for one store: a seller's few tabs or a script's lanes, not a flood's. */
const HELD_PER_STORE = 4;
/** Connections held at once by this process, for every store together. */
const HELD_IN_ALL = 64;
/** The longest a connection is held, whatever its `Retry-After` says. */
const HOLD_MAX_MS = 2_000;

let heldInAll = 0;
const heldPerStore = new Map<string, number>();

/**
 * A store that sent an upload again before the `Retry-After` it was given has
 * that upload held, unread, until the `Retry-After` passes (at most
 * {@link HOLD_MAX_MS}), or until its client hangs up; the caller then answers
 * 429 and closes the connection (D164). A sender that does not wait so gets its
 * answer no sooner than if it had waited: sending without pause gains it
 * nothing, and while it waits it costs the platform a timer and a socket the
 * kernel has stopped reading, where an answer at once would be a new
 * connection, its headers and the start of its body again a moment later.
 * Bounded per store and per process; past either bound the upload is answered
 * at once, as before.
 */
export async function holdImpatientUpload(request: FastifyRequest, store: string, retryAfterSeconds: number): Promise<void> {
  const mine = heldPerStore.get(store) ?? 0;
  if (mine >= HELD_PER_STORE || heldInAll >= HELD_IN_ALL) return;
  heldPerStore.set(store, mine + 1);
  heldInAll += 1;
  try {
    await new Promise<void>((resolve) => {
      // An injected request (light-my-request) has a socket that never closes: the timer alone releases it.
      const socket = typeof request.raw.socket?.once === 'function' ? request.raw.socket : null;
      const release = () => {
        clearTimeout(timer);
        socket?.off('close', release);
        resolve();
      };
      const timer = setTimeout(release, Math.min(retryAfterSeconds * 1000, HOLD_MAX_MS));
      socket?.once('close', release);
    });
  } finally {
    heldInAll -= 1;
    const left = (heldPerStore.get(store) ?? 1) - 1;
    if (left > 0) heldPerStore.set(store, left);
    else heldPerStore.delete(store);
  }
}
