import { refusalMessage } from '../core/refusals.js';
import type { ListField } from './list-resource.js';

/**
 * Typing of query-string values by field (spec-notes L6). Each parser
 * returns the value as the column holds it (`sql`) and as `meta.filters`
 * echoes it (`echo`), or its refusal's message for the 422 (core/refusals.ts). Nothing here ever
 * reaches SQL as text: values are bound as parameters.
 */
export type ParsedValue = { ok: true; sql: string | number; echo: string | number } | { ok: false; message: string };

/** Longest accepted filter value; longer values cannot match anything a seller stores. */
const MAX_FILTER_VALUE_LENGTH = 200;

const INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?\d{1,15}(\.\d{1,6})?$/;
const MONEY = /^-?(\d{1,13})(?:\.(\d{1,2}))?$/;
// ISO 8601: a date, or a date-time with an explicit zone (Z or ±hh:mm): a zone-less time would be ambiguous.
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * The instant a date or date-time matched by DATETIME names, or null when it names none.
 * Strict: every part must be in range as written (month 1–12, a day that
 * month has in that year, hour 0–23, minute and second 0–59, a zone within
 * ±23:59). `Date` alone is lenient: it reads 2026-02-30 as March 2nd, and a
 * filter bound silently moved is wrong data, not an error the client sees.
 */
function instantOf(raw: string, match: RegExpExecArray): Date | null {
  const [year, month, day, hour = 0, minute = 0, second = 0, zoneHours = 0, zoneMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (year === undefined || month === undefined || day === undefined) return null;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || zoneHours > 23 || zoneMinutes > 59) return null;
  const date = new Date(match[4] === undefined ? `${raw}T00:00:00Z` : raw);
  // An offset can carry a valid local time across year 1 or 9999; the column holds four-digit years only.
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  return date;
}

/** Days in a month of the proleptic Gregorian calendar (what ISO 8601 and `Date` use). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function parseFieldValue(field: ListField, raw: string): ParsedValue {
  if (raw.length > MAX_FILTER_VALUE_LENGTH) {
    return { ok: false, message: refusalMessage('LIST_VALUE_TOO_LONG', { max: MAX_FILTER_VALUE_LENGTH }) };
  }
  switch (field.type) {
    case 'string':
      return { ok: true, sql: raw, echo: raw };
    case 'id':
      return raw.length > 0 ? { ok: true, sql: raw, echo: raw } : { ok: false, message: refusalMessage('LIST_VALUE_EMPTY') };
    case 'enum':
      return field.values?.includes(raw)
        ? { ok: true, sql: raw, echo: raw }
        : { ok: false, message: refusalMessage('LIST_VALUE_NOT_IN_ENUM', { values: (field.values ?? []).join(', ') }) };
    case 'integer': {
      if (!INTEGER.test(raw)) return { ok: false, message: refusalMessage('LIST_VALUE_NOT_INTEGER') };
      const n = Number(raw);
      return { ok: true, sql: n, echo: n };
    }
    case 'number': {
      if (!NUMBER.test(raw)) return { ok: false, message: refusalMessage('LIST_VALUE_NOT_DECIMAL') };
      const n = Number(raw);
      return { ok: true, sql: n, echo: n };
    }
    case 'money': {
      const match = MONEY.exec(raw);
      if (!match) return { ok: false, message: refusalMessage('LIST_VALUE_NOT_MONEY') };
      // String arithmetic, so 0.1 + 0.2 style float errors never change a bound.
      const sign = raw.startsWith('-') ? -1 : 1;
      const cents = sign * (Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')));
      return { ok: true, sql: cents, echo: cents / 100 };
    }
    case 'datetime': {
      const match = DATETIME.exec(raw);
      if (!match) return { ok: false, message: refusalMessage('LIST_VALUE_NOT_DATE') };
      const date = instantOf(raw, match);
      if (!date) return { ok: false, message: refusalMessage('LIST_VALUE_DATE_OUT_OF_RANGE') };
      const iso = date.toISOString();
      return { ok: true, sql: iso, echo: iso };
    }
  }
}
