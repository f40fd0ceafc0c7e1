import { hash } from 'node:crypto';
import { uuidV7 } from '../core/uuid-v7.js';

/**
 * A delivery's id, which receivers see as `X-Webhook-Id` (and `webhook-id`):
 * a UUID v7 whose time is the event's creation and whose other 74 bits come
 * from the SHA-256 of `<event id>:<subscription id>`.
 *
 * It is a function of the event and the subscription, so a fan-out done twice
 * names its deliveries the same way both times. That happens when a fan-out
 * was sent but its commit was lost: on PostgreSQL the fan-out does not wait for
 * the WAL flush (storage/async-commit.ts), on SQLite no commit does
 * (`synchronous = NORMAL`), so a database crash or a power cut may undo it
 * after its deliveries went out. The event is then fanned out again and sent
 * again (spec-notes W6: a crash may duplicate, never lose) under the same id,
 * so receivers that drop ids they have seen (W5) drop the copy. With random ids
 * the copy carried a new one.
 *
 * Time-ordered, so the fan-out's inserts append to the delivery table's
 * indexes (uuid-v7.ts). PostgreSQL's fan-out computes the same id in SQL
 * (`deliveryIdSql`); a test holds the two equal.
 */
export function deliveryId(eventId: string, subscriptionId: string, eventCreatedAt: string): string {
  // The one-shot hash: cheaper than createHash().update().digest() (docs/decisions.md D9).
  const digest = hash('sha256', `${eventId}:${subscriptionId}`, 'buffer');
  return uuidV7(Date.parse(eventCreatedAt), digest, 0);
}

/**
 * `deliveryId` as a PostgreSQL expression over three text expressions of the
 * row it is computed for (the event's id, the subscription's id and the
 * event's ISO creation time): the layout of `uuidV7` (RFC 9562 §5.7), byte for
 * byte, with the hash taken once per row.
 */
export function deliveryIdSql(eventId: string, subscriptionId: string, eventCreatedAt: string): string {
  return `(
    select substr(ms, 1, 8) || '-' || substr(ms, 9, 4) || '-7' || substr(h, 2, 3) || '-' ||
           to_hex(128 | (('x' || substr(h, 5, 2))::bit(8)::int & 63)) || substr(h, 7, 2) || '-' || substr(h, 9, 12)
    from (
      select encode(sha256(convert_to(${eventId} || ':' || ${subscriptionId}, 'UTF8')), 'hex') as h,
             lpad(to_hex(round(extract(epoch from ${eventCreatedAt}::timestamptz) * 1000)::bigint), 12, '0') as ms
    ) parts
  )`;
}
