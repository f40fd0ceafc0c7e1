import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import type { PageOptions } from '../http/html-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { type ConsoleKit, refusalText as translatedRefusal, withNotice } from './console-kit.js';
import { isOperator } from './operator-session.js';
import { operatorSignInView } from './operator-views.js';

/** A form field as text, trimmed and cut to `max` characters ('' when absent). */
export function field(body: unknown, name: string, max: number): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim().slice(0, max) : '';
}

/** A refusal's text for the page, in its language: the field by its form label, what is wrong by the detail's slug. */
export function refusalText(t: Translator, error: unknown): string | null {
  if (!(error instanceof PlatformError)) return null;
  const labels: Record<string, () => string> = {
    login: () => t.text('login.login'),
    name: () => t.text('operator.seller.name'),
    password: () => t.text('login.password'),
  };
  return translatedRefusal(t, error, (field) => labels[field]?.() ?? field);
}

/** What every operator page shares: its frame, the sign-in page, and the operator check of each page and action. */
export interface OperatorFrame {
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    signedIn: boolean,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ): FastifyReply;
  signInPage(request: FastifyRequest, reply: FastifyReply, status?: number, error?: string | null): FastifyReply;
  guard(request: FastifyRequest, reply: FastifyReply, back: string): Promise<boolean>;
}

/** The operator console's frame over the console kit. */
export function operatorFrame(kit: ConsoleKit): OperatorFrame {
  function page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    signedIn: boolean,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ) {
    return kit.frame(
      request,
      reply,
      t,
      {
        name: signedIn ? t.text('operator.who') : null,
        signOutAction: '/console/operator/logout',
        home: { href: '/console/operator', label: t.text('operator.name') },
      },
      options,
    );
  }

  function signInPage(request: FastifyRequest, reply: FastifyReply, status = 200, error: string | null = null) {
    const t = requestTranslator(request);
    return page(request, reply, t, false, {
      status,
      title: t.text('operator.signin.title'),
      body: operatorSignInView(t, { csrf: kit.csrfToken(request, reply), error }),
    });
  }

  /** The operator check of every page and action: the sign-in page (401) otherwise; a bad CSRF token sends back. */
  async function guard(request: FastifyRequest, reply: FastifyReply, back: string): Promise<boolean> {
    if (!(await isOperator(request))) {
      signInPage(request, reply, 401);
      return false;
    }
    if (request.method === 'POST' && !csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf)) {
      // Nothing changed: the page says so (D69).
      kit.seeOther(reply, withNotice(back, 'expired'));
      return false;
    }
    return true;
  }

  return { page, signInPage, guard };
}

/** An operator page or action with nothing in its path. */
export const operatorPageOptions: RouteShorthandOptions = { schema: { hide: true } };

/** A route of one seller or app: its id in the path. */
export type IdRoute = { Params: { id: string } };

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** An operator page or action on one seller or one app, named by its id in the path. */
export const idPageOptions: RouteShorthandOptions = { schema: { hide: true, params: IdParams } };

/** A route of one of a seller's stores: the seller's id and the store's in the path. */
export type SellerStoreRoute = { Params: { id: string; tenantId: string } };

const SellerStoreParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
});

/** An operator action on one of a seller's stores: the seller's id and the store's in the path. */
export const sellerStorePageOptions: RouteShorthandOptions = { schema: { hide: true, params: SellerStoreParams } };
