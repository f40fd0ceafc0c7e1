import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { resolveStartSettings } from './start-config.js';

describe('freight gateway settings (D57, D60)', () => {
  it('takes each gateway base URL from its flag or environment, without a trailing slash; none by default', () => {
    expect(resolveStartSettings({}, {}, '/srv', false).platform.gateways).toEqual({});
    const settings = resolveStartSettings(
      { melhorEnvioUrl: 'https://sandbox.melhorenvio.com.br/' },
      { FEIRA_FRENET_URL: 'http://127.0.0.1:4100', FEIRA_DEMO_GATEWAY: 'melhor_envio' },
      '/srv',
      false,
    );
    expect(settings.platform.gateways).toEqual({
      melhorEnvio: 'https://sandbox.melhorenvio.com.br',
      frenet: 'http://127.0.0.1:4100',
    });
    expect(settings.demoGateway).toBe('melhor_envio');
  });

  it('refuses a gateway URL that is not absolute, carries a query, or (strict mode) is not https; an unknown demo gateway', () => {
    const resolve = (flags: Record<string, string>) => () => resolveStartSettings(flags, {}, '/srv', false);
    expect(resolve({ frenetUrl: 'api.frenet.com.br' })).toThrow(ConfigError);
    expect(resolve({ frenetUrl: 'https://api.frenet.com.br/?token=x' })).toThrow(/--frenet-url must not carry/);
    expect(resolve({ mode: 'strict', melhorEnvioUrl: 'http://melhorenvio.com.br' })).toThrow(/--melhor-envio-url must use https/);
    expect(resolve({ demoGateway: 'frenet' })).toThrow(/--demo-gateway must be one of none, melhor_envio/);
  });
});
