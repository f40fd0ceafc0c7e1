import { SCOPE_NAMES, type Scope } from '@feira/contract';
import { countClients, countSellers, createClient, createSeller, type Tenant } from '../accounts/index.js';
import { randomToken } from '../core/random.js';
import type { PlatformContext } from '../http/platform-context.js';
import { seedDemoRecords } from './demo-records.js';

export const DEMO_SELLER_LOGIN = 'demo@feira.test';
export const DEMO_CLIENT_NAME = 'Feira demo app';
export const DEMO_CALLBACK_PATH = '/demo/callback';
const DEMO_DEFAULT_SCOPES: Scope[] = ['open:portfolio:read', 'open:order-order:read'];
const DEMO_STORE_NAMES = ['Feira Demo Store', 'Feira Demo Outlet'];
/**
 * `feira login`'s redirect: a loopback IP literal without a port, so the
 * command may listen on any free port (RFC 8252 §7.3; see redirectUriMatches).
 */
export const DEMO_CLI_REDIRECT_URI = 'http://127.0.0.1/feira-cli/callback';
/** What the printed demo login URL asks for: the defaults plus webhook signup, so its token can run `feira listen`. */
const DEMO_LOGIN_SCOPES: Scope[] = [...DEMO_DEFAULT_SCOPES, 'open:webhook:write'];

/** Everything a developer needs to try the sandbox. The client secret is known only at creation, so it is kept in the data folder. */
export interface DemoCredentials {
  sellerLogin: string;
  sellerPassword: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  tenants: Array<{ id: string; name: string }>;
}

/** Fills the demo stores with records; the records capability's `seedDemoRecords` unless another is given. */
export type DemoRecordsSeeder = (platform: PlatformContext, tenants: Tenant[]) => Promise<void>;

/** A demo is planted only into an empty database: no seller and no client yet. */
export async function isEmptyForDemo(platform: PlatformContext): Promise<boolean> {
  const db = platform.database.db;
  return (await countSellers(db)) === 0 && (await countClients(db)) === 0;
}

/**
 * The sandbox's demo: a seller `demo@feira.test` with two stores
 * and a client app "Feira demo app" holding every catalogue scope, redirecting
 * to the platform's own demo callback page. The password and client secret are
 * random (the sandbox may listen beyond loopback) and returned for printing.
 */
export async function seedDemo(
  platform: PlatformContext,
  options: { seedRecords?: DemoRecordsSeeder } = {},
): Promise<DemoCredentials> {
  const db = platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  const sellerPassword = `demo-${randomToken(platform.random, 9)}`;
  const seller = await createSeller(
    db,
    {
      name: 'Demo Seller',
      login: DEMO_SELLER_LOGIN,
      password: sellerPassword,
      tenants: DEMO_STORE_NAMES.map((name) => ({ name })),
    },
    deps,
  );
  const redirectUri = `${platform.config.publicUrl}${DEMO_CALLBACK_PATH}`;
  const { client, clientSecret } = await createClient(
    db,
    {
      name: DEMO_CLIENT_NAME,
      redirectUris: [redirectUri, DEMO_CLI_REDIRECT_URI],
      scopes: [...SCOPE_NAMES],
      defaultScopes: DEMO_DEFAULT_SCOPES,
      termsOfUseUrl: `${platform.config.publicUrl}/demo/terms-of-use`,
      privacyPolicyUrl: `${platform.config.publicUrl}/demo/privacy-policy`,
    },
    deps,
  );

  // DEMO RECORDS CALL SITE: orders, products, tickets and transactions for
  // both stores come from the records capability's seeder.
  await (options.seedRecords ?? seedDemoRecords)(platform, seller.tenants);

  return {
    sellerLogin: DEMO_SELLER_LOGIN,
    sellerPassword,
    clientId: client.id,
    clientSecret,
    redirectUri,
    tenants: seller.tenants.map((t) => ({ id: t.id, name: t.name })),
  };
}

/** The consent URL of the demo client (spec: GET {auth_url}/login), ready to open in a browser. */
export function demoLoginUrl(authUrl: string, credentials: Pick<DemoCredentials, 'clientId' | 'redirectUri'>): string {
  const url = new URL(`${authUrl}/login`);
  url.searchParams.set('client_id', credentials.clientId);
  url.searchParams.set('redirect_uri', credentials.redirectUri);
  url.searchParams.set('scope', DEMO_LOGIN_SCOPES.join(' '));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('choose_tenants', 'true');
  url.searchParams.set('state', 'demo');
  return url.toString();
}
