import BetterSqlite from 'better-sqlite3';

/**
 * A consistent copy of a SQLite database file that may be in use: SQLite's
 * online backup API copies its pages in steps, starting over from the changed
 * pages when a writer commits meanwhile, so the copy is the database at one
 * commit, WAL included (a copy of the file alone could miss the commits still
 * in `-wal`). Writers of the running platform keep going while it copies.
 */
export async function backupSqliteFile(source: string, destination: string): Promise<void> {
  const db = new BetterSqlite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(destination);
  } finally {
    db.close();
  }
}
