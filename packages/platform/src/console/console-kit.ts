import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Seller } from '../accounts/seller-repository.js';
import type { PageOptions } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import type { WebhookViewer } from '../webhooks/seller-webhook-routes.js';

/**
 * What every console section shares (console-routes.ts builds it): the page
 * frame, the signed-in seller and their store named in the URL, the CSRF
 * token and a 303 back. A section module takes it rather than reaching for
 * another module's closures.
 */
/** Who the page header names: a seller, or the operator with their own sign-out and home. */
export interface ConsoleWho {
  name: string | null;
  signOutAction?: string;
  home?: { href: string; label: string };
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
  /** The signed-in seller and one of their stores, or null with the login page or a 404 already sent. */
  storeOf(
    request: FastifyRequest,
    reply: FastifyReply,
    tenantId: string,
  ): Promise<{ seller: Seller; store: { id: string; name: string }; viewer: WebhookViewer } | null>;
  csrfToken(request: FastifyRequest, reply: FastifyReply): string;
  seeOther(reply: FastifyReply, location: string): FastifyReply;
}
