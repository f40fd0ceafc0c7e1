/**
 * True when a database error is a unique-constraint violation, on either
 * dialect: better-sqlite3 reports `SQLITE_CONSTRAINT_UNIQUE`, pg reports
 * SQLSTATE 23505. Lets a repository turn a lost race into a 409 instead of a 500.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
