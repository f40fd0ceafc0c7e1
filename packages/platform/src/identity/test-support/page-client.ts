import { type Dispatcher, fetch } from 'undici';

export interface PageResponse {
  status: number;
  headers: Headers;
  body: string;
  url: string;
  /** Absolute Location of a redirect, if any. */
  location: string | null;
}

function decodeEntities(value: string): string {
  return value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}

/** The fields of the form posting to `action` on this page: hidden inputs plus the submit button's name/value if given. */
export function formFields(html: string, action: string): Record<string, string[]> {
  const forms = [...html.matchAll(/<form\b[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => f[1] === action);
  if (!form) throw new Error(`no form posting to ${action} on this page:\n${html.slice(0, 2000)}`);
  const fields: Record<string, string[]> = {};
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    const name = decodeEntities(input[1] ?? '');
    fields[name] = [...(fields[name] ?? []), decodeEntities(input[2] ?? '')];
  }
  return fields;
}

/**
 * A browser without a browser: fetch with a cookie jar, redirects handled by
 * hand so a test sees each hop. Cookies are kept only for the platform's origin.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();
  /** Redirects to URLs starting with this are not followed (the client's redirect_uri may be on the platform itself). */
  stopAt: string | null = null;

  /** `dispatcher`: the connection pool to use (a test may want this client on connections of its own). */
  constructor(
    readonly baseUrl: string,
    private readonly dispatcher?: Dispatcher,
  ) {}

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string | string[]>): Promise<PageResponse> {
    const target = new URL(url, this.baseUrl);
    const headers: Record<string, string> = {};
    if (target.origin === new URL(this.baseUrl).origin && this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) params.append(name, v);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(target, {
      method,
      headers,
      body,
      redirect: 'manual',
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers as unknown as Headers,
      body: await response.text(),
      url: target.toString(),
      location: location ? new URL(location, target).toString() : null,
    };
  }

  /** GET, then follow redirects while they stay on the platform; returns the last response. */
  async follow(url: string, first?: PageResponse): Promise<PageResponse> {
    let response = first ?? (await this.request('GET', url));
    for (let hops = 0; response.location && hops < 10; hops++) {
      if (new URL(response.location).origin !== new URL(this.baseUrl).origin) return response;
      if (this.stopAt && response.location.startsWith(this.stopAt)) return response;
      response = await this.request('GET', response.location);
    }
    return response;
  }

  /** Submits the form of `page` that posts to `action`, with extra fields, and follows the redirects. */
  async submit(page: PageResponse, action: string, extra: Record<string, string | string[]> = {}): Promise<PageResponse> {
    const fields: Record<string, string | string[]> = { ...formFields(page.body, action), ...extra };
    return this.follow('', await this.request('POST', action, fields));
  }
}

export interface PageFlowInput {
  clientId: string;
  redirectUri: string;
  scope?: string;
  /** `null` leaves the parameter out, as a standard OAuth library does (spec-notes I9: absent means true). */
  chooseTenants?: boolean | null;
  state?: string;
  codeChallenge?: string;
  login: string;
  password: string;
  /** Tenants to tick on the store page (default: all offered). */
  tenants?: string[];
  decision?: 'approve' | 'deny';
}

export interface PageFlowResult {
  /** The final redirect to redirect_uri, as a URL. */
  callback: URL;
  /** Which pages were shown, in order: 'login', 'tenants', 'consent'. */
  pages: string[];
}

export function loginUrl(baseUrl: string, input: Omit<PageFlowInput, 'login' | 'password'>): string {
  const url = new URL('/login', baseUrl);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('response_type', 'code');
  if (input.scope !== undefined) url.searchParams.set('scope', input.scope);
  if (input.chooseTenants !== null) url.searchParams.set('choose_tenants', String(input.chooseTenants ?? true));
  if (input.state !== undefined) url.searchParams.set('state', input.state);
  if (input.codeChallenge !== undefined) {
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

/** Drives the pages like a seller would: log in (if needed), tick stores, approve; returns the callback URL. */
export async function authorizeThroughPages(client: PageClient, input: PageFlowInput): Promise<PageFlowResult> {
  const pages: string[] = [];
  client.stopAt = input.redirectUri;
  let page = await client.follow(loginUrl(client.baseUrl, input));
  for (let step = 0; step < 5; step++) {
    if (page.location) return { callback: new URL(page.location), pages };
    if (page.body.includes('action="/login"') && page.body.includes('name="password"')) {
      pages.push('login');
      page = await client.submit(page, '/login', { login: input.login, password: input.password });
    } else if (page.body.includes('action="/login/tenants"')) {
      pages.push('tenants');
      const offered = [...page.body.matchAll(/name="tenant" value="([^"]*)"/g)].map((m) => m[1] as string);
      page = await client.submit(page, '/login/tenants', { tenant: input.tenants ?? offered });
    } else if (page.body.includes('action="/consent"')) {
      pages.push('consent');
      page = await client.submit(page, '/consent', { decision: input.decision ?? 'approve' });
    } else {
      throw new Error(`unexpected page (${page.status}):\n${page.body.slice(0, 1500)}`);
    }
  }
  throw new Error('the flow did not end in a redirect');
}
