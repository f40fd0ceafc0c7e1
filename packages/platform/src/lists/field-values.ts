import type { ListField } from './list-resource.js';

/**
 * Typing of query-string values by field (spec-notes L6). Each parser
 * returns the value as the column holds it (`sql`) and as `meta.filters`
 * echoes it (`echo`), or an error message for the 422. Nothing here ever
 * reaches SQL as text: values are bound as parameters.
 */
export type ParsedValue = { ok: true; sql: string | number; echo: string | number } | { ok: false; message: string };

/** Longest accepted filter value; longer values cannot match anything a seller stores. */
export const MAX_FILTER_VALUE_LENGTH = 200;

const INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?\d{1,15}(\.\d{1,6})?$/;
const MONEY = /^-?(\d{1,13})(?:\.(\d{1,2}))?$/;
// ISO 8601: a date, or a date-time with an explicit zone (Z or ±hh:mm): a zone-less time would be ambiguous.
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export function parseFieldValue(field: ListField, raw: string): ParsedValue {
  if (raw.length > MAX_FILTER_VALUE_LENGTH) {
    return { ok: false, message: `must be at most ${MAX_FILTER_VALUE_LENGTH} characters` };
  }
  switch (field.type) {
    case 'string':
      return { ok: true, sql: raw, echo: raw };
    case 'id':
      return raw.length > 0 ? { ok: true, sql: raw, echo: raw } : { ok: false, message: 'must not be empty' };
    case 'enum':
      return field.values?.includes(raw)
        ? { ok: true, sql: raw, echo: raw }
        : { ok: false, message: `must be one of: ${(field.values ?? []).join(', ')}` };
    case 'integer': {
      if (!INTEGER.test(raw)) return { ok: false, message: 'must be an integer' };
      const n = Number(raw);
      return { ok: true, sql: n, echo: n };
    }
    case 'number': {
      if (!NUMBER.test(raw)) return { ok: false, message: 'must be a decimal number' };
      const n = Number(raw);
      return { ok: true, sql: n, echo: n };
    }
    case 'money': {
      const match = MONEY.exec(raw);
      if (!match) return { ok: false, message: 'must be an amount with at most 2 decimal places' };
      // String arithmetic, so 0.1 + 0.2 style float errors never change a bound.
      const sign = raw.startsWith('-') ? -1 : 1;
      const cents = sign * (Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')));
      return { ok: true, sql: cents, echo: cents / 100 };
    }
    case 'datetime': {
      const match = DATETIME.exec(raw);
      if (!match) return { ok: false, message: 'must be an ISO 8601 date or date-time with a time zone' };
      const [, , month, day, hour, minute, second] = match;
      if (
        Number(month) > 12 ||
        Number(day) > 31 ||
        Number(hour ?? 0) > 23 ||
        Number(minute ?? 0) > 59 ||
        Number(second ?? 0) > 59
      ) {
        return { ok: false, message: 'is not a valid date-time' };
      }
      const date = new Date(match[4] ? raw : `${raw}T00:00:00Z`);
      if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) {
        return { ok: false, message: 'is not a valid date-time' };
      }
      const iso = date.toISOString();
      return { ok: true, sql: iso, echo: iso };
    }
  }
}
