import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Seller } from '../accounts/seller-repository.js';
import type { PageOptions } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import type { WebhookViewer } from '../webhooks/seller-webhook-routes.js';

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
export interface StoreOfSeller {
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
  /** The seller of the request's session, if any. */
  signedIn(request: FastifyRequest): Promise<Seller | null>;
  /** The seller's sign-in page (status 200 unless given), with an error if any. */
  loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra?: { status?: number; error?: string; login?: string },
  ): FastifyReply;
  /** The console's 404 page. */
  notFoundPage(request: FastifyRequest, reply: FastifyReply, seller: Seller | null): FastifyReply;
  /** The signed-in seller and one of their stores, or null with the login page or a 404 already sent. */
  storeOf(request: FastifyRequest, reply: FastifyReply, tenantId: string): Promise<StoreOfSeller | null>;
  csrfToken(request: FastifyRequest, reply: FastifyReply): string;
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
