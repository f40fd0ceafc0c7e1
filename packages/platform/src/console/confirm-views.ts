import { escapeHtml, hiddenFields } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';

/**
 * Confirmation of destructive actions (D69). A form made by
 * {@link confirmForm} carries its question in data attributes: with the
 * console module a `<dialog>` asks it (built with DOM calls, so the CSP needs
 * no inline script); without JavaScript the form posts without `confirmed`
 * and the route answers with {@link confirmationView}, a page asking the same
 * question whose button posts again with `confirmed=1`. The action runs only
 * with `confirmed=1`.
 */
export interface Confirmation {
  question: string;
  effect: string;
  yes: string;
  /** A destruction (deleting a store, an app, a table): its buttons take the danger colour; nothing else does. */
  danger?: boolean;
}

/** A one-button POST form that asks before it acts. */
export function confirmForm(
  t: Translator,
  input: {
    action: string;
    csrf: string;
    label: string;
    confirm: Confirmation;
    fields?: Record<string, string>;
    danger?: boolean;
  },
): string {
  const c = input.confirm;
  const danger = input.danger ?? c.danger ?? false;
  return `<form method="post" action="${escapeHtml(input.action)}" class="cell-form"${danger ? ' data-confirm-tone="danger"' : ''} data-confirm="${escapeHtml(c.question)}" data-confirm-effect="${escapeHtml(c.effect)}" data-confirm-yes="${escapeHtml(c.yes)}" data-confirm-no="${escapeHtml(t.text('confirm.cancel'))}">${hiddenFields({ csrf: input.csrf, ...(input.fields ?? {}) })}<button type="submit" class="${danger ? 'danger secondary' : 'secondary'}">${escapeHtml(input.label)}</button></form>`;
}

/** Whether a posted form carries the confirmation. */
export function isConfirmed(body: unknown): boolean {
  return !!body && typeof body === 'object' && (body as Record<string, unknown>).confirmed === '1';
}

/** The page a form without JavaScript gets: the question, what it does, confirm (POST again) or cancel (back). */
export function confirmationView(
  t: Translator,
  input: { confirm: Confirmation; action: string; csrf: string; back: string; fields?: Record<string, string> },
): string {
  return `<h1>${escapeHtml(input.confirm.question)}</h1>
<p>${escapeHtml(input.confirm.effect)}</p>
<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields({ csrf: input.csrf, ...(input.fields ?? {}), confirmed: '1' })}
<div class="actions"><button type="submit"${input.confirm.danger ? ' class="danger"' : ''}>${escapeHtml(input.confirm.yes)}</button>
<a href="${escapeHtml(input.back)}">${t.html('confirm.cancel')}</a></div>
</form>`;
}
