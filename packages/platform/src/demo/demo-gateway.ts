import type { Clock } from '../core/clock.js';
import type { PlatformConfig } from '../core/config.js';
import type { SecretBox } from '../core/secret-box.js';
import { configureShippingSettings, type ShippingSettings } from '../shipping/index.js';
import type { Database } from '../storage/database.js';
import { DEMO_GATEWAY_TOKEN, type FakeGateway, startFakeGateway } from './fake-gateways.js';

/**
 * The sandbox's fake Melhor Envio (D60): started beside the platform by
 * `feira start --demo-gateway melhor_envio`, on loopback over HTTP, its URL
 * the platform's Melhor Envio base URL setting for that run.
 */
export function startDemoGateway(): Promise<FakeGateway> {
  return startFakeGateway({ kind: 'melhor_envio', token: DEMO_GATEWAY_TOKEN, host: '127.0.0.1', port: 0 });
}

/**
 * Points a demo store at the fake Melhor Envio: the gateway method, kind
 * `melhor_envio`, the fake's token as the store's credential, shipping from a
 * São Paulo centre (its CEP is the origin) and a Rio one.
 */
export function configureDemoGatewayShipping(
  deps: { database: Database; clock: Clock; config: Pick<PlatformConfig, 'mode'>; box: SecretBox },
  tenantId: string,
): Promise<ShippingSettings> {
  return configureShippingSettings(deps, tenantId, {
    method: 'gateway',
    gateway: { kind: 'melhor_envio', credential: DEMO_GATEWAY_TOKEN },
    distribution_centers: [
      { id: 'CD-SP', zipcode: '01001000' },
      { id: 'CD-RJ', zipcode: '20040002' },
    ],
  });
}
