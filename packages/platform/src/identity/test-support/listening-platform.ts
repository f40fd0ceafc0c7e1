import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppDeps } from '../../app.js';
import type { ManualClock } from '../../core/clock.js';
import type { TestDatabaseTarget } from '../../storage/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../testing.js';

export interface ListeningPlatform extends TestPlatform {
  /** http://127.0.0.1:<port>, also the platform's configured auth_url and base_url (so `iss` and metadata match). */
  url: string;
}

/**
 * The real platform on a real socket (127.0.0.1, port 0). The socket is opened
 * first so its port can be the configured public URL: third-party clients check
 * that the metadata's issuer is the URL they talk to.
 */
export async function startListeningPlatform(
  target: TestDatabaseTarget,
  deps: Partial<Omit<AppDeps, 'database'>> & { clock?: ManualClock } = {},
): Promise<ListeningPlatform> {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const platform = await createTestPlatform(target, {
    ...deps,
    config: testConfig({ publicUrl: url, authUrl: url, ...deps.config }),
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
