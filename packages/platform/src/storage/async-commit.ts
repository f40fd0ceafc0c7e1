/**
 * PostgreSQL: the SQL call that makes the current transaction commit without
 * waiting for its WAL to reach the disk (`synchronous_commit` off for this
 * transaction only). A crash of the database server within a fraction of a
 * second after such a commit (at most three `wal_writer_delay`s, 600 ms by
 * default) may undo it as a whole; a crash of Feira's process never does, and
 * any later ordinary commit flushes it too.
 *
 * Only for writes that are redone when undone, never for records: the
 * webhook dispatcher's fan-out (undone, its events are fanned out again, under
 * the same delivery ids: webhooks/delivery-id.ts) and its results (undone, the
 * deliveries are sent again once their lease runs out, as after a dispatcher
 * crash before the result was written), and the outbox signal. SQLite commits
 * this way already (`synchronous = NORMAL`: a power cut may undo the last
 * commits, a crash of the process does not).
 *
 * Each commit that waits for its flush sits between an event and its delivery
 * (docs/decisions.md D16).
 */
export const ASYNC_COMMIT_SQL = "set_config('synchronous_commit', 'off', true)";
