import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestPlatform, type TestDatabaseTarget, type TestPlatform, testConfig } from '@feira/platform/testing';

export interface PlatformOnLoopback extends TestPlatform {
  /** http://127.0.0.1:<port>: also the configured {base_url} and {auth_url}, so links and `iss` point here. */
  url: string;
}

/**
 * The real platform on a real socket (127.0.0.1, port 0). The socket is bound
 * first so its address can be the configured public URL: the SDK follows
 * `meta.links.next` exactly, so those links must point at this server.
 */
export async function startPlatformOnLoopback(
  target: TestDatabaseTarget,
  options: { outboundCa?: string } = {},
): Promise<PlatformOnLoopback> {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => (handle ? handle(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const platform = await createTestPlatform(target, {
    config: testConfig({ publicUrl: url, authUrl: url }),
    ...(options.outboundCa ? { outboundCa: options.outboundCa } : {}),
  });
  handle = (req, res) => platform.app.routing(req, res);
  return {
    ...platform,
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await platform.close();
    },
  };
}
