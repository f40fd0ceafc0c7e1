import type { FastifyReply, FastifyRequest } from 'fastify';
import { IntlMessageFormat } from 'intl-messageformat';
import Negotiator from 'negotiator';
import type { PlatformError } from '../core/platform-error.js';
import { type RefusalCode, refuseTranslated } from '../core/refusals.js';
import { en, type MessageKey } from './messages-en.js';
import { ptBR } from './messages-pt-br.js';

/**
 * The languages of the pages (identity pages, consent button, console):
 * English and Brazilian Portuguese, from ICU MessageFormat catalogues
 * (intl-messageformat), never by concatenating strings. Money, dates and
 * numbers go through `Intl` with the same locale.
 */
export const LOCALES = ['en', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];
const DEFAULT_LOCALE: Locale = 'en';
/** The visible language switch stores the choice here (not httpOnly-sensitive: it holds only a locale). */
const LANG_COOKIE = 'feira_lang';
/** The console's time-zone choice (an IANA zone name), per browser session; Brazil's clock otherwise (D67). */
export const TIME_ZONE_COOKIE = 'feira_tz';
const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** An IANA time zone this runtime knows (`Intl` refuses the rest). */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The cookie's zone when valid, else America/Sao_Paulo. */
function requestTimeZone(request: FastifyRequest): string {
  const chosen = request.cookies?.[TIME_ZONE_COOKIE];
  return isTimeZone(chosen) ? chosen : DEFAULT_TIME_ZONE;
}

export const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { en, 'pt-BR': ptBR };
export type { MessageKey };

/** A text in every locale the console speaks, carried by something the catalogues do not name (a kind, a page; D91). */
export type LocalizedText = Readonly<Record<Locale, string>>;

/** A label as plain text in the translator's language: a catalogue entry, or the text carried for each locale. */
export function labelText(t: Pick<Translator, 'text' | 'locale'>, label: MessageKey | LocalizedText): string {
  return typeof label === 'string' ? t.text(label) : label[t.locale];
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The cookie's choice, else the best match of `Accept-Language` (any `pt` variant → pt-BR), else English. */
function requestLocale(request: FastifyRequest): Locale {
  const chosen = request.cookies?.[LANG_COOKIE];
  if (isLocale(chosen)) return chosen;
  const header = request.headers['accept-language'];
  if (!header) return DEFAULT_LOCALE;
  // Negotiator matches a bare `pt` to `pt-BR`; `pt-PT` is offered through its `pt` prefix too.
  const languages = new Negotiator({ headers: { 'accept-language': header } }).languages(['en', 'pt-BR', 'pt']);
  const best = languages[0];
  if (best === 'pt' || best === 'pt-BR') return 'pt-BR';
  if (best === 'en') return 'en';
  return DEFAULT_LOCALE;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A value already rendered as HTML (a link, a list of names), put into a message without escaping. */
interface RawHtml {
  html: string;
}
type MessageValue = string | number | Date | RawHtml;

const compiled = new Map<string, IntlMessageFormat>();
function formatter(locale: Locale, key: MessageKey): IntlMessageFormat {
  const id = `${locale}\u0001${key}`;
  let format = compiled.get(id);
  if (!format) {
    format = new IntlMessageFormat(CATALOGUES[locale][key], locale);
    compiled.set(id, format);
  }
  return format;
}

export interface Translator {
  locale: Locale;
  /** The IANA zone every time on the page is shown in (labelled with it). */
  timeZone: string;
  /** The message as HTML: values escaped (except RawHtml), `<b>` in the catalogue rendered as `<strong>`, `<code>` as itself. */
  html(key: MessageKey, values?: Record<string, MessageValue>): string;
  /** The message as plain text (for titles, attributes, scripts); tags dropped, nothing escaped. */
  text(key: MessageKey, values?: Record<string, MessageValue>): string;
  /** Whether the catalogue has `key` (labels of API names fall back to the name itself). */
  has(key: string): key is MessageKey;
  money(cents: number, currency?: string): string;
  number(value: number): string;
  dateTime(value: Date | string): string;
}

/** Date and time to the second; with the zone's short name it labels every time a page shows. */
export const DATE_TIME_PARTS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
};

function format(locale: Locale, key: MessageKey, values: Record<string, MessageValue>, asHtml: boolean): string {
  const raw: string[] = [];
  const prepared: Record<string, string | number | Date | ((chunks: string[]) => string)> = {
    b: (chunks) => (asHtml ? `<strong>${chunks.join('')}</strong>` : chunks.join('')),
    // An API name inside a sentence (a field, a code): set as code, as the pages set ids.
    code: (chunks) => (asHtml ? `<code>${chunks.join('')}</code>` : chunks.join('')),
  };
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'object' && !(value instanceof Date)) {
      raw.push(asHtml ? value.html : value.html.replace(/<[^>]*>/g, ''));
      prepared[name] = `\uE000${raw.length - 1}\uE001`;
    } else {
      prepared[name] = typeof value === 'string' && asHtml ? escapeHtml(value) : value;
    }
  }
  const out = formatter(locale, key).format(prepared);
  const text = Array.isArray(out) ? out.join('') : String(out);
  // Raw HTML values travel as private-use markers (never in a catalogue) and are put back after formatting.
  return text.replace(/\uE000(\d+)\uE001/g, (_m, i: string) => raw[Number(i)] ?? '');
}

export function translator(locale: Locale, timeZone = 'UTC'): Translator {
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'BRL' });
  const numbers = new Intl.NumberFormat(locale);
  const dates = new Intl.DateTimeFormat(locale, { ...DATE_TIME_PARTS, timeZone, timeZoneName: 'short' });
  return {
    locale,
    timeZone,
    html: (key, values = {}) => format(locale, key, values, true),
    text: (key, values = {}) => format(locale, key, values, false),
    has: (key): key is MessageKey => Object.hasOwn(CATALOGUES[locale], key),
    money: (cents, currency = 'BRL') =>
      (currency === 'BRL' ? money : new Intl.NumberFormat(locale, { style: 'currency', currency })).format(cents / 100),
    number: (value) => numbers.format(value),
    dateTime: (value) => dates.format(typeof value === 'string' ? new Date(value) : value),
  };
}

/** The codes of the catalogue (core/refusals.ts) the console catalogues translate, each as `refusal.<code>`. */
type TranslatedRefusal = MessageKey extends infer Key
  ? Key extends `refusal.${infer Code extends RefusalCode}`
    ? Code
    : never
  : never;

/**
 * A refusal of the catalogue in the translator's language: the code's slug,
 * status and headers, its message the console catalogues' `refusal.<code>`
 * (in English, the catalogue's own message). For the console's answers that
 * are not pages but are read by the operator or seller who sent the form.
 */
export function translatedRefusal(t: Pick<Translator, 'text'>, code: TranslatedRefusal): PlatformError {
  return refuseTranslated(code, t.text(`refusal.${code}`));
}

/** The request's language and time zone. */
export function requestTranslator(request: FastifyRequest): Translator {
  return translator(requestLocale(request), requestTimeZone(request));
}

/** A same-site path to go back to after switching language: `/…` but never `//host` or `/\host`. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (value.length > 4096 || [...value].some((ch) => ch.charCodeAt(0) < 0x20)) return '/';
  return value;
}

/** Remembers the visible switch's choice for a year. */
export function rememberLocale(request: FastifyRequest, reply: FastifyReply, locale: Locale): void {
  reply.setCookie(LANG_COOKIE, locale, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.server.platform.config.authUrl.startsWith('https:'),
    maxAge: 365 * 24 * 3600,
  });
}
