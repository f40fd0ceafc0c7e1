import { isRowRefusal } from './database-errors.js';

/** What a batch write left undone. */
export interface IsolatedWrite<T> {
  /** The rows left unwritten, in their order… */
  unwritten: T[];
  /** …and the first error that left rows so (null when every row was written). */
  cause: unknown;
}

/**
 * Writes a batch with `write`. When the database refuses it for some row's
 * values (`isRowRefusal`: a data or integrity error), each half is written on
 * its own, down to the refused rows, so that one row cannot cost the others
 * their write. At most `budget` further writes are spent on that, so that a
 * refusal of every row (code and schema at odds, say) costs a bounded
 * number. A row refused on its own is handed to `alone`, which may still
 * settle it (true). Any other failure (the database unreachable) is not
 * split: splitting would only meet it again, once per part.
 */
export async function writeIsolatingRefusals<T>(
  rows: readonly T[],
  write: (part: T[]) => Promise<void>,
  options: { budget: number; alone?: (row: T, error: unknown) => Promise<boolean> },
): Promise<IsolatedWrite<T>> {
  const unwritten: T[] = [];
  let cause: unknown = null;
  let budget = options.budget;
  const attempt = async (part: T[]): Promise<void> => {
    try {
      await write(part);
    } catch (error) {
      if (isRowRefusal(error)) {
        if (part.length > 1 && budget >= 2) {
          budget -= 2;
          const half = Math.ceil(part.length / 2);
          await attempt(part.slice(0, half));
          await attempt(part.slice(half));
          return;
        }
        if (part.length === 1 && options.alone && (await options.alone(part[0] as T, error))) return;
      }
      cause ??= error;
      unwritten.push(...part);
    }
  };
  if (rows.length > 0) await attempt([...rows]);
  return { unwritten, cause };
}
