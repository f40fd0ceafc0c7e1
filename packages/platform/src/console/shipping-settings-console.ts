import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import type { QuoteMethodRegistry } from '../shipping/index.js';
import {
  findShippingSettings,
  GATEWAY_KINDS,
  presentShippingSettings,
  type ShippingSettings,
  type ShippingSettingsBody,
  saveShippingSettings,
} from '../shipping/index.js';
import { type ConsoleKit, formBody, storePath, withNotice } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { SETTINGS_PARTS, type SettingsPart, settingsRefusal, shippingSettingsView } from './shipping-settings-views.js';

type Form = Record<string, unknown>;
type Body = ShippingSettingsBody & { methods: string[] };

/** A form field that may repeat (checkboxes of one name) as a list of strings. */
function many(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

const field = (form: Form, name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');

/** The stored settings as the API's PUT body (no credential: omitted, the stored one is kept), methods always a list. */
function currentBody(registry: QuoteMethodRegistry, settings: ShippingSettings | undefined): Body {
  if (!settings) return { methods: [], distribution_centers: [] };
  const { method, methods, ...rest } = presentShippingSettings(settings, registry);
  return { ...rest, methods: methods ?? (method ? [method] : []) } as Body;
}

const withMethod = (body: Body, name: string): Body =>
  body.methods.includes(name) ? body : { ...body, methods: [...body.methods, name] };

/**
 * What each form changes in the stored settings (D147). A method's own field
 * (the URL, the gateway) turns its method on when saved; turning a method off
 * drops its field, as the API wants it absent then. Everything else is the
 * API's to refuse.
 */
const EDITS: Record<SettingsPart | 'freight-on', (body: Body, form: Form, registry: QuoteMethodRegistry) => Body> = {
  methods(body, form, registry) {
    const position = (name: string) => Number(field(form, `order_${name}`)) || registry.names.length + 1;
    const on = registry.names.filter((name) => many(form.method).includes(name));
    const methods = on.map((name, i) => ({ name, i })).sort((a, b) => position(a.name) - position(b.name) || a.i - b.i);
    const next: Body = { ...body, methods: methods.map((m) => m.name) };
    for (const [name, key] of [
      ['seller_api', 'url'],
      ['gateway', 'gateway'],
    ] as const)
      if (!next.methods.includes(name)) delete next[key];
    return next;
  },
  url: (body, form) => ({ ...withMethod(body, 'seller_api'), url: field(form, 'url') }),
  centres(body, form) {
    const rows = Math.min(Number(field(form, 'rows')) || 0, 100);
    const centres = Array.from({ length: rows }, (_, i) => ({ id: field(form, `id_${i}`), zipcode: field(form, `zipcode_${i}`) }))
      .filter((centre) => centre.id || centre.zipcode)
      .map((centre) => (centre.zipcode ? centre : { id: centre.id }));
    return { ...body, distribution_centers: centres };
  },
  fallback: (body, form) => ({ ...body, fallback: field(form, 'fallback') === 'freight_table' ? 'freight_table' : null }),
  gateway(body, form) {
    const kind = field(form, 'kind');
    const id = field(form, 'id');
    const credential = typeof form.credential === 'string' ? form.credential : '';
    const gateway = { kind, ...(id && { id }), ...(credential && { credential }) };
    return { ...withMethod(body, 'gateway'), gateway } as Body;
  },
  // A method's options are always merged, so the tables as a method make backup rates from them redundant (the API refuses both).
  'freight-on': (body) => ({ ...withMethod(body, 'freight_table'), fallback: null }),
};

/** The body without `fallback: null` (the schema takes null; the stored settings then have none). */
function asPut(body: Body): ShippingSettingsBody {
  const { methods, ...rest } = body;
  return { ...rest, ...(methods.length > 0 && { methods }) } as ShippingSettingsBody;
}

const Params = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  part: Type.Union([...SETTINGS_PARTS, 'freight-on'].map((part) => Type.Literal(part))),
});
type PartParams = { tenantId: string; part: SettingsPart | 'freight-on' };

/**
 * The console's shipping settings page (D147): quote methods and their order,
 * the quote URL, distribution centres, backup rates and the gateway, each a
 * CSRF-protected form saved through saveShippingSettings (the admin API's
 * schema and rules, its URL check and outbound guard included).
 */
async function shippingSettingsRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const shipping = app.shipping;
  const settingsPath = (storeId: string) => storePath(storeId, '/shipping/settings');

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    tenantId: string,
    state: { saved?: SettingsPart | null; refused?: { part: SettingsPart; message: string; posted: Form } | null },
  ) {
    const found = await kit.storeOf(request, reply, tenantId);
    if (!found) return reply;
    const t = kit.translator(request);
    const settings = await findShippingSettings(shipping.database, found.store.id, shipping.quoteMethods);
    return kit.page(request, reply, t, found.seller, {
      title: t.text('settings.title', { store: found.store.name }),
      body: shippingSettingsView(t, {
        store: found.store,
        settings: settings ?? null,
        methods: shipping.quoteMethods.modules.map((m) => ({ name: m.name, label: m.labelKey, backedUp: m.backedUp })),
        gatewayKinds: GATEWAY_KINDS,
        csrf: kit.csrfToken(request, reply),
        saved: state.saved ?? null,
        refused: state.refused ?? null,
      }),
    });
  }

  app.get<{ Params: { tenantId: string }; Querystring: { saved?: string } }>(
    '/console/stores/:tenantId/shipping/settings',
    { schema: { hide: true, params: Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 64 }) }) } },
    (request, reply) => {
      const saved = SETTINGS_PARTS.find((part) => part === request.query.saved) ?? null;
      return render(request, reply, request.params.tenantId, { saved });
    },
  );

  app.post<{ Params: PartParams }>(
    '/console/stores/:tenantId/shipping/settings/:part',
    { schema: { hide: true, params: Params } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const { part } = request.params;
      const form = formBody(request);
      // The freight prompt lives on the shipping page and goes back there.
      const back = part === 'freight-on' ? storePath(found.store.id, '/shipping') : settingsPath(found.store.id);
      if (!kit.csrfValid(request, form.csrf)) return kit.seeOther(reply, withNotice(back, 'expired'));
      const stored = await findShippingSettings(shipping.database, found.store.id, shipping.quoteMethods);
      const body = EDITS[part](currentBody(shipping.quoteMethods, stored), form, shipping.quoteMethods);
      try {
        await saveShippingSettings(shipping, found.store.id, asPut(body));
      } catch (error) {
        if (!(error instanceof PlatformError) || error.statusCode !== 422) throw error;
        const refusedPart: SettingsPart = part === 'freight-on' ? 'methods' : part;
        const message = settingsRefusal(kit.translator(request), error);
        // The credential is never sent back to the page, even as the seller typed it.
        const posted = { ...form, credential: undefined };
        return render(request, reply.code(422), found.store.id, { refused: { part: refusedPart, message, posted } });
      }
      if (part === 'freight-on') return kit.seeOther(reply, withNotice(`${back}#freight`, 'freightOn'));
      return kit.seeOther(reply, `${back}?saved=${part}#${part}-heading`);
    },
  );
}

export const shippingSettingsSection: ConsoleSection = { name: 'shipping-settings', routes: shippingSettingsRoutes };
