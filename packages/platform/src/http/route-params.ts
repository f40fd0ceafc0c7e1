import { type Static, Type } from '@sinclair/typebox';

/**
 * The path parameters many routes share, declared once: a store (tenant) id is
 * a UUID, so 64 characters bound it with room to spare, and a longer one is
 * refused (400) before any lookup.
 */
const STORE_ID = Type.String({ minLength: 1, maxLength: 64 });

/** A store in a console page's path (`/console/stores/:tenantId/…`). */
export const StoreParams = Type.Object({ tenantId: STORE_ID });

/** A store in an API path (`…/stores/:tenant_id/…`, `…/tenants/:tenant_id/…`). */
export const TenantParams = Type.Object({ tenant_id: STORE_ID });
export type TenantParams = Static<typeof TenantParams>;
