import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROTATION_STATEMENTS, type RotationValues } from '../../src/identity/refresh-token-rotation.js';
import { type Database, openSqliteConnection } from '../../src/storage/database.js';
import { sqlitePlan } from '../../src/storage/test-query-plans.js';
import { openSqliteTestDatabase } from '../../src/test-databases.js';

// spec-notes I5: a refresh takes the presented token and supersedes its parent and the parent's other
// children. A grant rotated every two hours for a year holds thousands of rows in its family, so each of
// these statements must find its rows by key, never by reading the family: the plan of each is checked
// (D166). SQLite only: PostgreSQL runs the rotation as one statement planned with the table's statistics.

const VALUES: RotationValues & { parentJti: string } = {
  jti: 'presented',
  fid: 'family',
  now: '2026-11-29T12:00:00.000Z',
  graceStartedAfter: '2026-11-29T11:59:00.000Z',
  newJti: 'next',
  newCreatedAt: '2026-11-29T12:00:00.000Z',
  newExpiresAt: '2026-12-29T12:00:00.000Z',
  parentJti: 'parent',
};

describe('the refresh grant reads a long rotation chain by key (SQLite query plans)', () => {
  let database: Database;
  let plan: (query: Parameters<typeof sqlitePlan>[1]) => string[];
  let closeRaw: () => void;
  beforeAll(async () => {
    database = await openSqliteTestDatabase();
    const raw = openSqliteConnection(database.sqliteFile as string);
    plan = (query) => sqlitePlan(raw, query).filter((detail) => /^(SCAN|SEARCH) /.test(detail));
    closeRaw = () => raw.close();
  });
  afterAll(async () => {
    closeRaw();
    await database.close();
  });

  it('spec-notes I5: the presented token is taken by its jti', () => {
    const lines = plan(ROTATION_STATEMENTS.take.query(database.db, 'sqlite', VALUES));
    expect(lines[0]).toMatch(/^SEARCH refresh_tokens USING INDEX sqlite_autoindex_refresh_tokens_1 \(jti=\?\)/);
    expect(lines.join('\n')).not.toMatch(/family_id_idx|SCAN refresh_tokens/);
  });

  it("spec-notes I5: the parent and its other children are superseded by the parent's jti and by parent_jti, never by reading the family", () => {
    const lines = plan(ROTATION_STATEMENTS.supersede.query(database.db, 'sqlite', VALUES));
    expect(lines).toEqual([
      'SEARCH refresh_tokens USING INDEX sqlite_autoindex_refresh_tokens_1 (jti=?)',
      'SEARCH refresh_tokens USING INDEX refresh_tokens_parent_idx (parent_jti=?)',
    ]);
  });
});
