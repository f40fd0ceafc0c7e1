import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml, LOCALES, type Translator, translator } from '../i18n/i18n.js';

/** Escapes text for HTML element content and double-quoted attributes. */
export { escapeHtml };

/** A safe `http(s)` URL for a link, or null (a `javascript:` URL stored on a client is never rendered). */
export function safeLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : null;
  } catch {
    return null;
  }
}

// One small inline stylesheet, allowed by its hash: no external assets, no inline script at all.
const STYLESHEET = `
:root{color-scheme:light dark;--fg:#1c1f24;--muted:#5b6370;--bg:#f4f5f7;--card:#fff;--accent:#0b5cad;--accent-fg:#fff;--danger:#a3261b;--border:#d4d8de}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--muted:#a9b0bb;--bg:#15181c;--card:#1f2329;--accent:#5aa2f0;--accent-fg:#0b1320;--danger:#ff8a80;--border:#3a414b}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:2rem;width:min(28rem,calc(100vw - 2rem));box-shadow:0 2px 12px rgb(0 0 0 / .08)}
h1{font-size:1.35rem;margin:0 0 .75rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.9rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=text],input[type=password]{width:100%;padding:.6rem .7rem;font:inherit;color:inherit;background:transparent;border:1px solid var(--border);border-radius:8px}
fieldset{border:1px solid var(--border);border-radius:8px;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
fieldset label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.5rem 0}
ul{padding-left:1.25rem}
li{margin:.35rem 0}
code{font-size:.8rem;color:var(--muted)}
.actions{display:flex;gap:.75rem;margin-top:1.5rem;flex-wrap:wrap}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer}
button.secondary{background:transparent;color:var(--accent)}
button.link{border:0;background:none;color:var(--accent);padding:0;font-weight:400;text-decoration:underline}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.error{color:var(--danger);font-weight:600}
pre{white-space:pre-wrap;word-break:break-all;font-size:.8rem;background:var(--bg);padding:.75rem;border-radius:8px}
a{color:var(--accent)}
nav.lang{display:flex;gap:.75rem;justify-content:flex-end;font-size:.9rem;margin:-1rem 0 .5rem}
nav.lang [aria-current]{font-weight:700;color:var(--fg);text-decoration:none}
`;
const STYLE_HASH = `sha256-${createHash('sha256').update(STYLESHEET).digest('base64')}`;

/** A CSP source for where a form may go next: the redirect_uri's origin (Chromium checks form-action on redirects too). */
function formTarget(redirectUri: string | undefined): string {
  if (!redirectUri) return '';
  try {
    const url = new URL(redirectUri);
    return url.origin !== 'null' ? ` ${url.origin}` : ` ${url.protocol}`;
  } catch {
    return '';
  }
}

/**
 * Sends a server-rendered page with the security headers every identity page
 * carries: CSP with `frame-ancestors 'none'` and a hashed
 * stylesheet, X-Frame-Options DENY, no referrer (codes and states stay out of
 * Referer), no caching.
 */
export interface PageOptions {
  status?: number;
  /** Plain text; the page's language suffix is added. */
  title: string;
  body: string;
  redirectUri?: string | undefined;
  /** The page's language (default English); sets `<html lang>`. */
  t?: Translator;
  /** Where the visible language switch comes back to (a same-site path); no switch when absent. */
  switchBack?: string;
  /** Module scripts served by the platform itself (`script-src 'self'`); none on the identity pages. */
  scripts?: string[];
  /** Extra stylesheets served by the platform itself. */
  styles?: string[];
  /** `wide` for console pages (a full-width layout instead of the centred card). */
  layout?: 'card' | 'wide';
  /** Replaces `<main>`'s content wrapper entirely (console chrome: header, nav). */
  chrome?: (main: string) => string;
}

/** The visible language switch: one link per language, the current one marked (WCAG 3.1.2: each link in its own language). */
export function languageSwitch(t: Translator, back: string): string {
  const links = LOCALES.map((locale) => {
    const name = translator(locale).text('lang.name');
    const href = `/lang?to=${encodeURIComponent(locale)}&back=${encodeURIComponent(back)}`;
    return locale === t.locale
      ? `<a href="${escapeHtml(href)}" lang="${locale}" hreflang="${locale}" aria-current="true">${escapeHtml(name)}</a>`
      : `<a href="${escapeHtml(href)}" lang="${locale}" hreflang="${locale}">${escapeHtml(name)}</a>`;
  }).join('\n');
  return `<nav class="lang" aria-label="${escapeHtml(t.text('lang.switch'))}">${links}</nav>`;
}

export function sendPage(reply: FastifyReply, page: PageOptions): FastifyReply {
  const t = page.t ?? translator('en');
  const scripts = page.scripts ?? [];
  const styles = page.styles ?? [];
  const csp = [
    "default-src 'none'",
    `style-src '${STYLE_HASH}'${styles.length > 0 ? " 'self'" : ''}`,
    ...(scripts.length > 0 ? ["script-src 'self'", "connect-src 'self'"] : []),
    "img-src 'self' data:",
    `form-action 'self'${formTarget(page.redirectUri)}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="${t.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(page.title)} · ${escapeHtml(t.text('page.suffix'))}</title>
<style>${STYLESHEET}</style>
${styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')}
${scripts.map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`).join('\n')}
</head>
<body${page.layout === 'wide' ? ' class="wide"' : ''}>
${
  page.chrome
    ? page.chrome(page.body)
    : `<main>
${page.switchBack ? languageSwitch(t, page.switchBack) : ''}
${page.body}
</main>`
}
</body>
</html>`;
  return reply
    .code(page.status ?? 200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(html);
}

/** Hidden inputs carrying the authorization request and the CSRF token. */
export function hiddenFields(fields: Record<string, string | string[]>): string {
  return Object.entries(fields)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => [name, v] as const))
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}
