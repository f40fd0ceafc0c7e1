import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from './sqlite-statement-cache.js';

describe('SQLite statement cache', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-stmt-'));
    dirs.push(dir);
    const sqlite = new SqliteDatabase(join(dir, 'x.db'));
    sqlite.exec('create table t (id integer primary key, v text)');
    return sqlite;
  };

  it('reuses one prepared statement per SQL text and returns fresh results each time', () => {
    const cached = withStatementCache(open());
    const insert = cached.prepare('insert into t (v) values (?)');
    insert.run(['a']);
    expect(cached.prepare('insert into t (v) values (?)')).toBe(insert);
    cached.prepare('insert into t (v) values (?)').run(['b']);
    expect(cached.prepare('select v from t order by id').all([])).toEqual([{ v: 'a' }, { v: 'b' }]);
    cached.close();
  });

  it('keeps at most the configured number of statements, dropping the oldest', () => {
    const cached = withStatementCache(open(), 2);
    const first = cached.prepare('select 1 as x');
    cached.prepare('select 2 as x');
    cached.prepare('select 3 as x');
    expect(cached.prepare('select 1 as x')).not.toBe(first);
    expect(cached.prepare('select 1 as x').all([])).toEqual([{ x: 1 }]);
    cached.close();
  });

  it('a cached statement still works after the schema changes under it', () => {
    const cached = withStatementCache(open());
    expect(cached.prepare('select * from t').all([])).toEqual([]);
    cached.prepare('alter table t add column w text').run([]);
    cached.prepare("insert into t (v, w) values ('a', 'b')").run([]);
    expect(cached.prepare('select * from t').all([])).toEqual([{ id: 1, v: 'a', w: 'b' }]);
    cached.close();
  });
});
