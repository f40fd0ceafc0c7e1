// What a database error means, told by its code on either dialect (better-sqlite3's
// SQLITE_* codes, pg's SQLSTATE), so that callers decide without parsing messages.

/** The error's `code` (better-sqlite3's and pg's errors both carry one), or '' when it has none. */
function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

/**
 * True when a database error is a unique-constraint violation, on either
 * dialect: better-sqlite3 reports `SQLITE_CONSTRAINT_UNIQUE`, pg reports
 * SQLSTATE 23505. Lets a repository turn a lost race into a 409 instead of a 500.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * True when a database error is a foreign-key violation (better-sqlite3
 * `SQLITE_CONSTRAINT_FOREIGNKEY`, pg SQLSTATE 23503): a write naming a parent
 * row that does not exist, such as a record for an unknown tenant.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

/**
 * True when the database refused a write for the values it carried: a data
 * exception or an integrity violation (pg SQLSTATE classes 22 and 23;
 * better-sqlite3 `SQLITE_CONSTRAINT*`, `SQLITE_MISMATCH`, `SQLITE_TOOBIG`),
 * as opposed to being unreachable, busy or shutting down. The same write
 * without the refused rows may then succeed.
 */
export function isRowRefusal(error: unknown): boolean {
  const code = codeOf(error);
  return (
    /^2[23][0-9A-Z]{3}$/.test(code) ||
    code.startsWith('SQLITE_CONSTRAINT') ||
    code === 'SQLITE_MISMATCH' ||
    code === 'SQLITE_TOOBIG'
  );
}

/**
 * True when SQLite answered that another connection holds the lock it needs
 * (`SQLITE_BUSY` and its extended codes, such as `SQLITE_BUSY_RECOVERY` while
 * another connection recovers the WAL): the same statement may succeed later.
 */
export function isSqliteBusy(error: unknown): boolean {
  return codeOf(error).startsWith('SQLITE_BUSY');
}

/**
 * Socket errors (Node's codes) by which a connection to the server failed or
 * broke: nobody listens (stopped), the connection was cut (a killed backend,
 * a restart), or the host cannot be reached.
 */
const UNREACHABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs by which the server says it cannot serve now: class 08 (connection
 * exception), 57P01 admin_shutdown (`pg_ctl stop -m fast`, pg_terminate_backend),
 * 57P02 crash_shutdown (another backend crashed, every session is cut),
 * 57P03 cannot_connect_now (starting up, shutting down, in recovery), 53300
 * too_many_connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/**
 * pg's own errors for a lost or missing connection carry no code, only these
 * fixed messages: the socket closed under a query, a connect that took longer
 * than `connectionTimeoutMillis` (pg-pool's queue or pg's own), and a query on a
 * client whose connection had already failed.
 */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect$|Client has encountered a connection error and is not queryable$|Client was closed and is not queryable$)/;

/**
 * True when a database error means the server cannot be reached or cannot
 * serve now (stopped, restarting, in crash recovery, the connection cut), as
 * opposed to refusing this statement: the same request may succeed once the
 * server is back, so the API answers 503 with Retry-After instead of 500.
 * Looks through `cause` and an AggregateError's `errors` (Node reports a
 * refused connect to every address of a name as one AggregateError).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableIn(error, 0);
}

function unavailableIn(error: unknown, depth: number): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const code = codeOf(error);
  if (UNREACHABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)) return true;
  if (code === '' && error instanceof Error && PG_CONNECTION_MESSAGES.test(error.message)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (unavailableIn(cause, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((inner) => unavailableIn(inner, depth + 1));
}

/** The Retry-After (seconds) of a request refused because the database is unreachable: about one reconnect attempt away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
