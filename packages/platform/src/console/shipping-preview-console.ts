import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tenantExists } from '../accounts/index.js';
import { PlatformError } from '../core/platform-error.js';
import { StoreParams } from '../http/route-params.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { firstProductSkus } from '../records/index.js';
import { DEFAULT_ZIPCODE, previewStoreQuote, type QuotePreview, sellerPreviewRoutes } from '../shipping/index.js';
import { type ConsoleKit, formBody } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { isOperator } from './operator-session.js';
import { PREVIEW_LINES, type PreviewForm, previewView } from './shipping-preview-views.js';

/** The form's values as sent: text only, cut to their field lengths. */
function readForm(body: Record<string, unknown>): PreviewForm {
  const list = (value: unknown) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => (typeof v === 'string' ? v : ''));
  const skus = list(body.sku);
  const quantities = list(body.quantity);
  return {
    zipcode: typeof body.zipcode === 'string' ? body.zipcode.trim().slice(0, 8) : '',
    lines: Array.from({ length: PREVIEW_LINES }, (_, i) => ({
      sku: (skus[i] ?? '').trim().slice(0, 50),
      quantity: (quantities[i] ?? '').trim().slice(0, 6),
    })),
  };
}

/** Checks the form and runs the preview: the preview, or what is wrong with the form (the page's status with it). */
async function runPreview(
  app: FastifyInstance,
  tenantId: string,
  form: PreviewForm,
  t: Translator,
): Promise<{ status: number; preview: QuotePreview | null; error: string | null }> {
  const items = form.lines
    .filter((line) => line.sku !== '')
    .map((line) => ({ sku: line.sku, quantity: /^[0-9]{1,6}$/.test(line.quantity) ? Number(line.quantity) : 0 }));
  const problem = !/^[0-9]{8}$/.test(form.zipcode)
    ? t.text('preview.zipcode')
    : items.length === 0 || items.some((item) => item.quantity < 1)
      ? t.text('preview.quantity', { n: Math.max(1, items.findIndex((item) => item.quantity < 1) + 1) })
      : null;
  if (problem) return { status: 422, preview: null, error: problem };
  try {
    return {
      status: 200,
      preview: await previewStoreQuote(app.shipping, { tenantId, zipcode: form.zipcode, items }),
      error: null,
    };
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    // The only refusals left are a cart line's (`items.<i>.sku`: unknown, twice, or not quotable).
    const line = /^items\.(\d+)\./.exec(error.details[0]?.field ?? '')?.[1];
    return {
      status: error.statusCode,
      preview: null,
      error: t.text('preview.refused.line', { n: line === undefined ? 1 : Number(line) + 1 }),
    };
  }
}

/**
 * The console's quote preview (D61): a seller types a CEP and a cart and
 * sees what a shopper would, each method's own options, which were merged
 * and why the two shown are those. The page posts a plain form (no script);
 * the JSON preview is the seller API's `POST /seller/v1/stores/{id}/shipping/preview`.
 */
async function previewRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  await app.register(sellerPreviewRoutes);
  const platform = app.platform;

  async function render(
    request: FastifyRequest<{ Params: { tenantId: string } }>,
    reply: FastifyReply,
    form: PreviewForm | null,
    preview: QuotePreview | null,
    error: string | null,
  ) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const t = requestTranslator(request);
    let shownForm = form;
    if (!shownForm) {
      const skus = await firstProductSkus(platform.database.db, found.store.id, 2);
      shownForm = {
        zipcode: DEFAULT_ZIPCODE,
        lines: Array.from({ length: PREVIEW_LINES }, (_, i) => ({ sku: skus[i] ?? '', quantity: skus[i] ? '1' : '' })),
      };
    }
    return kit.page(request, reply, t, found.seller, {
      title: t.text('preview.title', { store: found.store.name }),
      body: previewView(t, {
        store: found.store,
        nav: kit.storeNav(t, found.store.id, 'shipping'),
        csrf: kit.csrfToken(request, reply),
        form: shownForm,
        preview,
        error,
        labelOf: (method) => app.shipping.quoteMethods.find(method)?.labelKey ?? 'shipping.method.seller_api',
      }),
    });
  }

  app.get<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/shipping/preview',
    { schema: { hide: true, params: StoreParams } },
    (request, reply) => render(request, reply, null, null, null),
  );

  app.post<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/shipping/preview',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const body = formBody(request);
      const form = readForm(body);
      const t = requestTranslator(request);
      if (!csrfTokenValid(request, body.csrf)) return render(request, reply.code(403), form, null, t.text('login.error.expired'));
      const run = await runPreview(app, found.store.id, form, t);
      return render(request, reply.code(run.status), form, run.preview, run.error);
    },
  );
}

/**
 * The operator's quote preview of any store (D61): the same page under
 * /console/operator, behind the operator session; the store is named by its id.
 */
async function operatorPreviewRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const platform = app.platform;
  async function render(
    request: FastifyRequest<{ Params: { tenantId: string } }>,
    reply: FastifyReply,
    form: PreviewForm,
    preview: QuotePreview | null,
    error: string | null,
  ) {
    const t = requestTranslator(request);
    const store = { id: request.params.tenantId, name: request.params.tenantId };
    return kit.frame(
      request,
      reply,
      t,
      {
        name: t.text('operator.who'),
        signOutAction: '/console/operator/logout',
        home: { href: '/console/operator', label: t.text('operator.name') },
      },
      {
        title: t.text('preview.title', { store: store.name }),
        body: previewView(t, {
          store,
          nav: '',
          csrf: kit.csrfToken(request, reply),
          form,
          preview,
          error,
          labelOf: (method) => app.shipping.quoteMethods.find(method)?.labelKey ?? 'shipping.method.seller_api',
          operator: true,
        }),
      },
    );
  }
  /** The operator and an existing store, or the operator console (sign-in) / a 404 already answered. */
  async function allowed(request: FastifyRequest<{ Params: { tenantId: string } }>, reply: FastifyReply): Promise<boolean> {
    if (!(await isOperator(request))) {
      kit.seeOther(reply, '/console/operator');
      return false;
    }
    if (!(await tenantExists(platform.database.db, request.params.tenantId))) {
      kit.notFoundPage(request, reply, null);
      return false;
    }
    return true;
  }
  const emptyForm: PreviewForm = {
    zipcode: DEFAULT_ZIPCODE,
    lines: Array.from({ length: PREVIEW_LINES }, () => ({ sku: '', quantity: '' })),
  };

  app.get<{ Params: { tenantId: string } }>(
    '/console/operator/stores/:tenantId/shipping/preview',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => ((await allowed(request, reply)) ? render(request, reply, emptyForm, null, null) : reply),
  );

  app.post<{ Params: { tenantId: string } }>(
    '/console/operator/stores/:tenantId/shipping/preview',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      if (!(await allowed(request, reply))) return reply;
      const body = formBody(request);
      const form = readForm(body);
      const t = requestTranslator(request);
      if (!csrfTokenValid(request, body.csrf)) return render(request, reply.code(403), form, null, t.text('login.error.expired'));
      const run = await runPreview(app, request.params.tenantId, form, t);
      return render(request, reply.code(run.status), form, run.preview, run.error);
    },
  );
}

export const shippingPreviewSection: ConsoleSection = {
  name: 'shipping-preview',
  routes: async (app, kit) => {
    await previewRoutes(app, kit);
    await operatorPreviewRoutes(app, kit);
  },
};
