import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Seller } from '../accounts/index.js';
import type { PlatformError } from '../core/platform-error.js';
import { escapeHtml, type PageOptions } from '../http/html-page.js';
import { DATE_TIME_PARTS, type Translator } from '../i18n/i18n.js';
import type { WebhookViewer } from '../webhooks/index.js';

/**
 * What every console section shares (console-routes.ts builds it): the page
 * frame, the signed-in seller and their store named in the URL, the CSRF
 * token, a 303 back, the store's section navigation and live regions. A
 * section module takes it rather than reaching for another module's closures.
 */
/** Who the page header names: a seller, or the operator with their own sign-out and home. */
export interface ConsoleWho {
  name: string | null;
  signOutAction?: string;
  home?: { href: string; label: string };
}

/** The signed-in seller, one of their stores and the webhook viewer scoped to it. */
interface StoreOfSeller {
  seller: Seller;
  store: { id: string; name: string };
  viewer: WebhookViewer;
}

export interface ConsoleKit {
  /** Sends a console page framed for `who`. */
  frame(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    who: ConsoleWho,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ): FastifyReply;
  /** Sends a console page: the chrome, the console stylesheet and module, plus the page's own. */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    seller: Seller | null,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ): FastifyReply;
  /**
   * Sends a page that shows a secret (D98): uncompressed and never stored (its
   * route must be registered with http/secret-page.ts's SECRET_PAGE_ROUTE), and
   * framed from nothing the request chose: no notice, and the language switch
   * comes back to `back`, not to the request's URL.
   */
  secretPage(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    seller: Seller,
    options: Omit<PageOptions, 't' | 'chrome'> & { back: string },
  ): FastifyReply;
  /** The seller of the request's session, if any. */
  signedIn(request: FastifyRequest): Promise<Seller | null>;
  /** The seller's sign-in page (status 200 unless given), with an error if any. */
  loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra?: { status?: number; error?: string; login?: string; next?: string },
  ): FastifyReply;
  /** The console's 404 page. */
  notFoundPage(request: FastifyRequest, reply: FastifyReply, seller: Seller | null): FastifyReply;
  /** The signed-in seller and one of their stores, or null with the login page or a 404 already sent. */
  storeOf(request: FastifyRequest, reply: FastifyReply, tenantId: string): Promise<StoreOfSeller | null>;
  csrfToken(request: FastifyRequest, reply: FastifyReply): string;
  /** Whether a form's token is the session's CSRF token (compared in constant time); a POST checks it first. */
  csrfValid(request: FastifyRequest, token: unknown): boolean;
  /** The request's translator: its language (cookie, then Accept-Language) and the seller's time zone. */
  translator(request: FastifyRequest): Translator;
  seeOther(reply: FastifyReply, location: string): FastifyReply;
  /** The store's section navigation (every registered section with a nav entry), `current` marked. */
  storeNav(t: Translator, storeId: string, current: string): string;
  /**
   * A server-sent event stream that polls `read` each second and sends
   * `event` with `render`'s JSON whenever `fingerprint` changes; ended by the
   * browser leaving or the server closing.
   */
  liveRegion<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    live: {
      event: string;
      first: T;
      read: () => Promise<T | undefined>;
      fingerprint: (value: T) => string;
      render: (value: T) => Record<string, unknown>;
    },
  ): void;
}

/** A form body as a record (anything else reads as empty). */
export function formBody(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** `/console/stores/{store}` + the rest, the store id escaped. */
export function storePath(storeId: string, rest = ''): string {
  return `/console/stores/${encodeURIComponent(storeId)}${rest}`;
}

/**
 * The console's one time formatter (D67): a time in the viewer's zone
 * (`t.timeZone`, America/Sao_Paulo unless the seller chose another), to the
 * second, labelled with the zone's short name ("26/11/2026, 13:54:00 BRT").
 * Tables, facts, filters and chart data all show times through this, and the
 * chart module formats its axes and legend in the same zone.
 */
export function formatConsoleTime(t: Translator, value: Date | string): string {
  return t.dateTime(value);
}

/** {@link formatConsoleTime} inside `<time datetime>` (the machine-readable instant beside the shown one). */
export function consoleTimeHtml(t: Translator, value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return '—';
  return `<time datetime="${date.toISOString()}">${escapeHtml(formatConsoleTime(t, date))}</time>`;
}

/** The zone's offset from UTC at `instant`, in minutes (−180 for São Paulo). */
function zoneOffsetMinutes(zone: string, instant: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { ...DATE_TIME_PARTS, timeZone: zone })
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour) % 24,
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

/** An instant as a `datetime-local` value in `zone` ("2026-11-26T13:54"), for the "since" fields. */
export function toZonedInput(instant: Date, zone: string): string {
  const shifted = new Date(instant.getTime() + zoneOffsetMinutes(zone, instant.getTime()) * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/**
 * A `datetime-local` value read in `zone` as the instant it names, or null
 * when it is not one. (A wall time skipped by a daylight-saving change maps
 * to the instant one offset away, as `Temporal`'s "compatible" does.)
 */
export function fromZonedInput(raw: string, zone: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(raw.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0));
  if (Number.isNaN(wall)) return null;
  let instant = wall - zoneOffsetMinutes(zone, wall) * 60_000;
  instant = wall - zoneOffsetMinutes(zone, instant) * 60_000;
  return new Date(instant);
}

/** The zone's name for a label: "America/Sao_Paulo (BRT)". */
export function timeZoneLabel(t: Translator): string {
  const short = new Intl.DateTimeFormat(t.locale, { timeZone: t.timeZone, timeZoneName: 'short' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')?.value;
  return short ? `${t.timeZone.replace(/_/g, ' ')} (${short})` : t.timeZone.replace(/_/g, ' ');
}

/**
 * Notices a page shows after a redirect (`?notice=<name>`): what just happened,
 * including what did not (an expired form). Only these names are read.
 */
const NOTICES = {
  expired: (t: Translator) => t.text('notice.expired'),
  zoneSaved: (t: Translator) => t.text('notice.zoneSaved', { zone: timeZoneLabel(t) }),
  freightDeleted: (t: Translator) => t.text('notice.freightDeleted'),
  freightOn: (t: Translator) => t.text('notice.freightOn'),
} as const;
export type NoticeName = keyof typeof NOTICES;

/** `path` with `notice=<name>` added to its query. */
export function withNotice(path: string, name: NoticeName): string {
  const [base, hash] = path.split('#', 2);
  return `${base}${(base ?? '').includes('?') ? '&' : '?'}notice=${name}${hash ? `#${hash}` : ''}`;
}

/** The notice named in the request's query, as HTML (a status region), or ''. */
export function noticeHtml(request: FastifyRequest, t: Translator): string {
  const name = (request.query as Record<string, unknown> | undefined)?.notice;
  if (typeof name !== 'string' || !Object.hasOwn(NOTICES, name)) return '';
  return `<p class="notice" role="status">${escapeHtml(NOTICES[name as NoticeName](t))}</p>`;
}

/**
 * A refusal (PlatformError) as the page's language says it: the first
 * detail's field, named by `label` (a form's label, not the API's name), and
 * what is wrong with it by its slug; the API's own English message is never
 * shown (D81).
 */
export function refusalText(t: Translator, error: PlatformError, label: (field: string) => string = (f) => f): string {
  const detail = error.details[0];
  if (!detail) return t.text('console.error.generic', { status: error.statusCode });
  return t.text('console.error.detail', { field: label(detail.field), slug: detail.slug });
}

/**
 * A console page to come back to after signing in, or null: a relative path
 * under `/console` (never another host: no `//`, no backslash, no control
 * characters), and neither the stores list itself nor a sign-in or sign-out
 * action nor the operator console (its own sign-in) (D68).
 */
export function safeConsolePath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2048) return null;
  if (!value.startsWith('/console/') || value.includes('\\') || value.includes('//')) return null;
  if ([...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return null;
  const path = value.split(/[?#]/, 1)[0] ?? '';
  if (['/console/login', '/console/logout'].includes(path) || path.startsWith('/console/operator')) return null;
  return value;
}

/** A webhook topic as a seller reads it ("Pedidos" for `order`); the topic id itself when the catalogue has no name for it. */
export function topicLabel(t: Translator, topic: string): string {
  return t.text('webhooks.topicName', { topic });
}
