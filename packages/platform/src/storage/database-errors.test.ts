import { describe, expect, it } from 'vitest';
import { isRowRefusal, isSqliteBusy } from './database-errors.js';

describe('isRowRefusal: which database errors are about the rows written (issue 22)', () => {
  it.each([
    ['22021', 'pg: invalid byte sequence (U+0000 in text)'],
    ['22P05', 'pg: untranslatable character'],
    ['22001', 'pg: value too long'],
    ['23505', 'pg: unique violation'],
    ['23503', 'pg: foreign-key violation'],
    ['23514', 'pg: check violation'],
    ['SQLITE_CONSTRAINT_TRIGGER', 'SQLite: RAISE(ABORT) in a trigger'],
    ['SQLITE_CONSTRAINT_FOREIGNKEY', 'SQLite: foreign-key violation'],
    ['SQLITE_CONSTRAINT_NOTNULL', 'SQLite: NOT NULL'],
    ['SQLITE_MISMATCH', 'SQLite: datatype mismatch'],
    ['SQLITE_TOOBIG', 'SQLite: string or blob too big'],
  ])('%s (%s) is a refusal of the rows: the same write without them may succeed', (code, _what) => {
    expect(isRowRefusal(Object.assign(new Error('refused'), { code }))).toBe(true);
  });

  it.each([
    ['57P01', 'pg: the server shutting down'],
    ['08006', 'pg: connection failure'],
    ['40001', 'pg: serialization failure'],
    ['53100', 'pg: disk full'],
    ['53300', 'pg: too many connections'],
    ['SQLITE_BUSY', 'SQLite: database locked'],
    ['SQLITE_IOERR_WRITE', 'SQLite: I/O error'],
    ['SQLITE_FULL', 'SQLite: disk full'],
    ['ECONNREFUSED', 'no server at all'],
    [undefined, 'an error without a code'],
  ])('%s (%s) is not: splitting the write would not help', (code, _what) => {
    expect(isRowRefusal(Object.assign(new Error('failed'), { code }))).toBe(false);
  });

  it('neither is something that is not an error object', () => {
    expect(isRowRefusal(null)).toBe(false);
    expect(isRowRefusal('23505')).toBe(false);
  });
});

describe('isSqliteBusy: which errors are another connection holding the lock (issue 22)', () => {
  it.each([
    ['SQLITE_BUSY', true],
    ['SQLITE_BUSY_RECOVERY', true],
    ['SQLITE_BUSY_SNAPSHOT', true],
    ['SQLITE_LOCKED', false],
    ['SQLITE_CONSTRAINT_UNIQUE', false],
    ['55P03', false],
  ])('%s: %s', (code, busy) => {
    expect(isSqliteBusy(Object.assign(new Error('locked'), { code }))).toBe(busy);
  });
});
