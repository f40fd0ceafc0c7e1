import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isRowRefusal, isSqliteBusy } from './database-errors.js';

describe('isRowRefusal: which database errors are about the rows written', () => {
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

describe('isSqliteBusy: which errors are another connection holding the lock', () => {
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

describe('isDatabaseUnavailable: which errors mean the database cannot serve now (answered 503 + Retry-After)', () => {
  it.each([
    ['ECONNREFUSED', 'nobody listens: the server is stopped'],
    ['ECONNRESET', 'the connection was cut (a killed backend)'],
    ['EPIPE', 'written to a closed connection'],
    ['ETIMEDOUT', 'the host does not answer'],
    ['57P01', 'pg: admin_shutdown (pg_terminate_backend, pg_ctl stop -m fast)'],
    ['57P02', 'pg: crash_shutdown (another backend crashed)'],
    ['57P03', 'pg: cannot_connect_now (starting up, in recovery)'],
    ['08006', 'pg: connection_failure'],
    ['08001', 'pg: unable to establish a connection'],
    ['53300', 'pg: too_many_connections'],
  ])('%s (%s) is', (code, _what) => {
    expect(isDatabaseUnavailable(Object.assign(new Error('failed'), { code }))).toBe(true);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
  ])("pg's code-less '%s' is", (message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
  });

  it('so is a refused connect reported as an AggregateError (every address of a name), or one given as a cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(new AggregateError([refused], 'connect failed'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('write failed', { cause: refused }))).toBe(true);
  });

  it.each([
    ['23505', 'pg: unique violation'],
    ['22021', 'pg: invalid byte sequence'],
    ['40001', 'pg: serialization failure'],
    ['42P01', 'pg: undefined table'],
    ['57014', 'pg: query_canceled (statement_timeout)'],
    ['SQLITE_BUSY', 'SQLite: database locked'],
    ['SQLITE_CONSTRAINT_UNIQUE', 'SQLite: unique violation'],
  ])('%s (%s) is not: the server answered, about this statement', (code, _what) => {
    expect(isDatabaseUnavailable(Object.assign(new Error('Connection terminated unexpectedly'), { code }))).toBe(false);
  });

  it("nor is an error without a code whose message is not one of pg's, nor something that is not an error", () => {
    expect(isDatabaseUnavailable(new Error('something else broke'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
