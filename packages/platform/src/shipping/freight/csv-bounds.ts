import type { UploadLimits } from '../../core/config.js';
import { UploadLimitExceeded } from './upload-limits.js';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The CSV's bounds, checked on the raw text before the parser sees it: a
 * cell's length, the cells of a row and the rows of the file. Papa Parse
 * gathers a cell whole before it hands the record over, so one cell of
 * hundreds of megabytes would be held and scanned in one go; this scanner
 * keeps only counters (and the header's names, to say which column) and
 * throws at the first bound, naming the line and the column, so the text
 * past it is never read.
 *
 * Quotes toggle the quoted state (a doubled quote toggles twice and leaves it
 * as it was, RFC 4180 §2.7); a delimiter or a line break inside quotes is
 * part of the cell. Lines count every line break, as the reader's line
 * numbers do (freight-csv.ts).
 */
export class CsvBounds {
  private line = 1;
  private cellLine = 1;
  private quoted = false;
  private cell = 0;
  private column = 0;
  private records = 0;
  private headerText = '';
  private header: string[] | undefined;

  constructor(
    private readonly limits: Pick<UploadLimits, 'cellChars' | 'columns' | 'rows'>,
    private readonly delimiter: ';' | ',',
  ) {}

  /** Checks one chunk of text (chunks continue one another). */
  scan(text: string): void {
    const delimiter = this.delimiter.charCodeAt(0);
    const maxCell = this.limits.cellChars;
    if (this.header === undefined) this.headerText += text.slice(0, maxCell * 2);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.quoted = !this.quoted;
        continue;
      }
      if (!this.quoted) {
        if (c === delimiter) {
          if (this.records >= this.limits.rows) this.fail('rows', this.limits.rows);
          this.endCell();
          continue;
        }
        if (c === LF) {
          this.line += 1;
          this.endRecord();
          continue;
        }
        if (c === CR) continue;
      } else if (c === LF) this.line += 1;
      this.cell += 1;
      if (this.cell > maxCell) this.fail('cellChars', maxCell);
      if (this.records >= this.limits.rows) this.fail('rows', this.limits.rows);
    }
  }

  private endCell(): void {
    this.column += 1;
    this.cell = 0;
    this.cellLine = this.line;
    if (this.column >= this.limits.columns) this.fail('columns', this.limits.columns);
  }

  private endRecord(): void {
    if (this.header === undefined) {
      this.header = (this.headerText.split(/\r?\n/)[0] ?? '').split(this.delimiter).map((name) => name.replace(/"/g, '').trim());
      this.headerText = '';
    }
    this.records += 1;
    this.column = 0;
    this.cell = 0;
    this.cellLine = this.line;
  }

  private fail(limit: 'cellChars' | 'columns' | 'rows', value: number): never {
    const name = this.header?.[this.column];
    // A whole line's bound is named as the reader names a line it cannot read (`(line)`).
    const column = limit === 'rows' ? '(line)' : name ? name : `column ${this.column + 1}`;
    throw new UploadLimitExceeded({
      limit,
      value,
      line: limit === 'cellChars' ? this.cellLine : this.line,
      column,
    });
  }
}
