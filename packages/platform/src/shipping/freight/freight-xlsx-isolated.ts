import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { UploadLimits } from '../../core/config.js';
import type { FreightCsvResult, FreightRow } from './freight-csv.js';
import type { XlsxThreadInput, XlsxThreadMessage } from './freight-xlsx-thread.js';
import { UploadLimitExceeded } from './upload-limits.js';

/**
 * Workbook threads running at once in this process: one core is always left
 * to the event loop, so quotes and other tenants' requests keep their CPU
 * however many workbooks arrive together. An upload waits for a turn before
 * its body is read, so a queue of them holds their bodies in the sockets,
 * not in memory.
 */
const THREADS = Math.max(1, availableParallelism() - 1);
let running = 0;
const waiting: Array<() => void> = [];

async function threadTurn(): Promise<() => void> {
  if (running >= THREADS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  let given = false;
  return () => {
    if (given) return;
    given = true;
    running -= 1;
    waiting.shift()?.();
  };
}

/** The body whole, refused at `limit` bytes: a zip is read from its end (the central directory), so it is held. */
async function bodyOf(source: AsyncIterable<Buffer | string> | Iterable<Buffer>, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) throw new UploadLimitExceeded({ limit: 'workbookBytes', value: limit });
    chunks.push(bytes);
  }
  // A buffer of its own (not a slice of Node's shared pool), so it can be moved to the thread, not copied.
  const zip = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    zip.set(chunk, at);
    at += chunk.length;
  }
  return zip;
}

/**
 * The thread's module: the compiled file beside this one, or, run from the
 * TypeScript sources (the tests), the source through tsx, which a worker does
 * not inherit from its parent.
 */
function startThread(input: XlsxThreadInput, limits: UploadLimits): Worker {
  const options = {
    workerData: input,
    transferList: [input.zip.buffer as ArrayBuffer],
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: limits.workbookHeapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
  };
  const compiled = new URL('./freight-xlsx-thread.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, options);
  const source = new URL('./freight-xlsx-thread.ts', import.meta.url).href;
  // The tests run from the workspace, where tsx (a development dependency) resolves.
  return new Worker(
    `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`,
    { ...options, eval: true },
  );
}

/**
 * Reads a freight workbook off the main thread (docs/security.md, "Tenant
 * isolation"): the body is taken up to `workbookBytes`, then a worker thread
 * with a heap of `workbookHeapMb` checks every bound as the zip inflates and
 * reads the rows, handing them over a batch at a time (`onRows`, one write at
 * a time: the thread waits for each). At most THREADS such threads run at once. Past `workbookSeconds`, or out of
 * memory, the thread is ended and the upload refused; no other request waits
 * on it meanwhile, since the main thread only writes the rows.
 */
export async function readFreightXlsxIsolated(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
  onRows: (rows: FreightRow[]) => Promise<void>,
  options: { batchRows: number; limits: UploadLimits },
): Promise<FreightCsvResult> {
  const { limits } = options;
  const done = await threadTurn();
  let worker: Worker | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const zip = await bodyOf(source, limits.workbookBytes);
    const thread = startThread({ zip, limits, batchRows: options.batchRows }, limits);
    worker = thread;
    return await new Promise<FreightCsvResult>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        outcome();
      };
      timer = setTimeout(
        () => settle(() => reject(new UploadLimitExceeded({ limit: 'workbookSeconds', value: limits.workbookSeconds }))),
        limits.workbookSeconds * 1000,
      );
      thread.on('message', (message: XlsxThreadMessage) => {
        if (message.type === 'rows') {
          onRows(message.rows).then(
            () => {
              if (!settled) thread.postMessage('ack');
            },
            (error: unknown) => settle(() => reject(error)),
          );
        } else if (message.type === 'limit') settle(() => reject(new UploadLimitExceeded(message.hit)));
        else settle(() => resolve(message.result));
      });
      thread.on('error', (error: Error & { code?: string }) =>
        settle(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new UploadLimitExceeded({ limit: 'workbookHeapMb', value: limits.workbookHeapMb })
              : error,
          ),
        ),
      );
      thread.on('exit', (code) => settle(() => reject(new Error(`the workbook's thread ended (${code}) without an answer`))));
    });
  } finally {
    clearTimeout(timer);
    await worker?.terminate();
    done();
  }
}
