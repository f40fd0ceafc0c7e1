// A seller's browser without a browser: fetch with a cookie jar, following the
// identity provider's pages (login, store choice, consent) by their forms, until
// the redirect to the integrator's redirect_uri.

function decode(value: string): string {
  return value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}

function hiddenFields(html: string, action: string): Array<[string, string]> {
  const form = [...html.matchAll(/<form\b[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].find(
    (f) => decode(f[1] ?? '') === action,
  );
  if (!form) throw new Error(`no form posting to ${action}:\n${html.slice(0, 1500)}`);
  return [...(form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [
    decode(m[1] ?? ''),
    decode(m[2] ?? ''),
  ]);
}

/** Walks the consent pages as `login`/`password` and returns the callback URL the platform redirected to. */
export async function consentAsSeller(
  startUrl: string,
  seller: { login: string; password: string; tenants?: string[] },
): Promise<URL> {
  const origin = new URL(startUrl).origin;
  const cookies = new Map<string, string>();
  const go = async (method: 'GET' | 'POST', url: string, form?: Array<[string, string]>) => {
    const target = new URL(url, origin);
    const headers: Record<string, string> = {};
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(target, {
      method,
      headers,
      redirect: 'manual',
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    return { body: await response.text(), location: location ? new URL(location, target) : null };
  };

  let page = await go('GET', startUrl);
  for (let step = 0; step < 12; step++) {
    if (page.location) {
      if (page.location.origin !== origin) return page.location;
      page = await go('GET', page.location.toString());
      continue;
    }
    if (page.body.includes('action="/login"') && page.body.includes('name="password"')) {
      page = await go('POST', '/login', [
        ...hiddenFields(page.body, '/login'),
        ['login', seller.login],
        ['password', seller.password],
      ]);
    } else if (page.body.includes('action="/login/tenants"')) {
      const offered = [...page.body.matchAll(/name="tenant" value="([^"]*)"/g)].map((m) => m[1] as string);
      const chosen = (seller.tenants ?? offered).map((t): [string, string] => ['tenant', t]);
      page = await go('POST', '/login/tenants', [...hiddenFields(page.body, '/login/tenants'), ...chosen]);
    } else if (page.body.includes('action="/consent"')) {
      page = await go('POST', '/consent', [...hiddenFields(page.body, '/consent'), ['decision', 'approve']]);
    } else {
      throw new Error(`unexpected page:\n${page.body.slice(0, 1500)}`);
    }
  }
  throw new Error('the consent flow did not end in a redirect');
}
