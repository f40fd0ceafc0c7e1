import { describe, expect, it } from 'vitest';
import { pollUntil } from '../testing.js';
import { BatchingWriter } from './batching-writer.js';

describe('BatchingWriter: one "flush after N rows or T ms"', () => {
  it('writes a batch as soon as it holds maxRows rows, in order, one batch after the other', async () => {
    const written: number[][] = [];
    let concurrent = 0;
    let most = 0;
    const writer = new BatchingWriter<number>(
      async (batch) => {
        concurrent += 1;
        most = Math.max(most, concurrent);
        await new Promise((resolve) => setImmediate(resolve));
        written.push(batch);
        concurrent -= 1;
      },
      { maxRows: 3, maxDelayMs: 60_000 },
    );
    for (let i = 1; i <= 7; i++) writer.append(i);
    expect(writer.pendingRows).toBe(1);
    await pollUntil('two full batches', () => (written.length === 2 ? true : undefined), { deadlineMs: 5_000 });
    expect(written).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await writer.flush();
    expect(written).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(most).toBe(1);
  });

  it('writes a partial batch maxDelayMs after its first row', async () => {
    const written: string[][] = [];
    const writer = new BatchingWriter<string>(
      async (batch) => {
        written.push(batch);
      },
      { maxRows: 100, maxDelayMs: 5 },
    );
    writer.append('a');
    writer.append('b');
    expect(written).toEqual([]);
    await pollUntil('the timed flush', () => (written.length === 1 ? true : undefined), { deadlineMs: 5_000 });
    expect(written).toEqual([['a', 'b']]);
    expect(writer.pendingRows).toBe(0);
  });

  it('reports a failed batch and goes on with the next', async () => {
    const failed: number[][] = [];
    const written: number[][] = [];
    const writer = new BatchingWriter<number>(
      async (batch) => {
        if (batch.includes(2)) throw new Error('bad row');
        written.push(batch);
      },
      { maxRows: 2, maxDelayMs: 60_000 },
      (_error, batch) => failed.push([...batch]),
    );
    for (let i = 1; i <= 4; i++) writer.append(i);
    await writer.flush();
    expect(failed).toEqual([[1, 2]]);
    expect(written).toEqual([[3, 4]]);
  });
});
