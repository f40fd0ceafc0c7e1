import { describe, expect, it } from 'vitest';
import { writeIsolatingRefusals } from './refused-rows.js';

const refused = () => Object.assign(new Error('check violation'), { code: '23514' });
const unreachable = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** A store that refuses any batch holding a row in `bad`, and records each write it was asked for. */
function store(bad: Set<number>, failure = refused) {
  const written: number[] = [];
  const writes: number[][] = [];
  return {
    written,
    writes,
    write: async (part: number[]) => {
      writes.push(part);
      if (part.some((n) => bad.has(n))) throw failure();
      written.push(...part);
    },
  };
}

const rows = Array.from({ length: 16 }, (_, i) => i);

describe('a batch write that isolates the rows the database refuses', () => {
  it('writes every row but the refused ones, in order, and says which are left and why', async () => {
    const s = store(new Set([3, 12]));
    const result = await writeIsolatingRefusals(rows, s.write, { budget: 100 });
    expect(s.written).toEqual(rows.filter((n) => n !== 3 && n !== 12));
    expect(result.unwritten).toEqual([3, 12]);
    expect((result.cause as { code: string }).code).toBe('23514');
  });

  it('spends at most its budget of further writes when every row is refused', async () => {
    const s = store(new Set(rows));
    const result = await writeIsolatingRefusals(rows, s.write, { budget: 6 });
    expect(s.writes.length).toBeLessThanOrEqual(1 + 6);
    expect(result.unwritten).toEqual(rows);
  });

  it('does not split a batch the database fails for another reason', async () => {
    const s = store(new Set([5]), unreachable);
    const result = await writeIsolatingRefusals(rows, s.write, { budget: 100 });
    expect(s.writes).toHaveLength(1);
    expect(result.unwritten).toEqual(rows);
    expect((result.cause as { code: string }).code).toBe('ECONNREFUSED');
  });

  it('hands a row refused on its own to `alone`, which may still settle it', async () => {
    const s = store(new Set([7]));
    const settled: number[] = [];
    const result = await writeIsolatingRefusals(rows, s.write, {
      budget: 100,
      alone: async (row) => {
        settled.push(row);
        return true;
      },
    });
    expect(settled).toEqual([7]);
    expect(result).toEqual({ unwritten: [], cause: null });
  });
});
