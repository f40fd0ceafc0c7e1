export interface BatchingOptions {
  /** A batch is written as soon as it holds this many rows… */
  maxRows: number;
  /** …or this long after its first row, whichever comes first. */
  maxDelayMs: number;
}

/**
 * Collects rows and hands them to `write` in batches: "flush after N rows or
 * T ms" (docs/decisions.md D7), for the writers whose per-row commit cost dominated their
 * profile (the webhook dispatcher's attempt results, the quote log). Batches
 * are written one after another, in order; `flush()` writes what is pending
 * and resolves once it and every earlier batch is written. A batch whose
 * `write` rejects is dropped from the chain (the writer is told, through
 * `onError`, and later batches still go): callers that must not lose rows
 * handle their own failures inside `write`. A pending timer never keeps the
 * process alive: whoever closes flushes.
 */
export class BatchingWriter<T> {
  #pending: T[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: BatchingOptions,
    private readonly onError: (error: unknown, batch: readonly T[]) => void = () => {},
  ) {}

  /** Rows appended and not yet handed to `write`. */
  get pendingRows(): number {
    return this.#pending.length;
  }

  append(row: T): void {
    this.#pending.push(row);
    if (this.#pending.length >= this.options.maxRows) {
      void this.flush();
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.options.maxDelayMs);
      this.#timer.unref?.();
    }
  }

  /** Hands every pending row to `write`; resolves once they and every earlier batch are written. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const batch = this.#pending;
    if (batch.length > 0) {
      this.#pending = [];
      this.#writing = this.#writing.then(() => this.write(batch).catch((error: unknown) => this.onError(error, batch)));
    }
    return this.#writing;
  }
}
