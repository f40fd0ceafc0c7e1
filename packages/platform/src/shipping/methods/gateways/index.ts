import { frenetAdapter } from './frenet.js';
import type { GatewayAdapter } from './gateway-adapter.js';
import { melhorEnvioAdapter } from './melhor-envio.js';

export type { GatewayAdapter, GatewayOrigin } from './gateway-adapter.js';

/** A gateway that speaks the seller-API quote contract at an operator-registered URL (spec-notes Q8 as first built). */
export const SELLER_API_CONTRACT = 'seller_api_contract';

/**
 * spec-notes Q8, D57: the gateways with an API of their own, one module each.
 * A new one is a `GatewayAdapter` module here plus its base URL setting
 * (core/config.ts `GatewayBaseUrls`, one row in the CLI's settings table).
 */
export const GATEWAY_ADAPTERS: readonly GatewayAdapter[] = [melhorEnvioAdapter, frenetAdapter];

/** Every gateway kind a store may choose, the contract kind first. */
export const GATEWAY_KINDS = [SELLER_API_CONTRACT, ...GATEWAY_ADAPTERS.map((adapter) => adapter.kind)] as const;

export function gatewayAdapterOf(kind: string): GatewayAdapter | undefined {
  return GATEWAY_ADAPTERS.find((adapter) => adapter.kind === kind);
}
