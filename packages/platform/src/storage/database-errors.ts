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
