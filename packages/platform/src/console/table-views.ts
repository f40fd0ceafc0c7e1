import { escapeHtml } from '../http/html-page.js';

/**
 * A console data table: caption or heading, header cells, and, under 600 px,
 * each row stacked as a card whose cells carry their column's name
 * (`data-label`), so state and actions stay in view without sideways
 * scrolling. The wrapper is a named, focusable region, so a table wider than
 * the screen can still be scrolled from the keyboard.
 */
export interface Column {
  /** Plain text: the header cell and the stacked cell's label. */
  label: string;
  /** Right-aligned figures. */
  num?: boolean;
}

export function dataTable(input: {
  /** Plain text caption, or the id of the heading that names the table. */
  caption?: string;
  labelledBy?: string;
  label: string;
  columns: Column[];
  /** Each row's cells, already HTML. */
  rows: string[][];
}): string {
  const head = input.columns.map((c) => `<th scope="col"${c.num ? ' class="num"' : ''}>${escapeHtml(c.label)}</th>`).join('');
  const body = input.rows
    .map(
      (cells) =>
        `<tr>${cells
          .map((cell, i) => {
            const column = input.columns[i];
            return `<td${column?.num ? ' class="num"' : ''}${column ? ` data-label="${escapeHtml(column.label)}"` : ''}>${cell}</td>`;
          })
          .join('')}</tr>`,
    )
    .join('\n');
  const caption = input.caption ? `<caption>${escapeHtml(input.caption)}</caption>` : '';
  const named = input.labelledBy ? ` aria-labelledby="${escapeHtml(input.labelledBy)}"` : '';
  return `<div class="table-wrap" role="region" tabindex="0" aria-label="${escapeHtml(input.label)}"><table class="stack"${named}>${caption}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}
