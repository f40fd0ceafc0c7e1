// Load-generator workload of the token-peer scenario, the same wire format for Feira and for
// node-oidc-provider: form bodies, client_secret_post, PKCE verifier. `exchange`: one
// authorization_code exchange per request, each with a fresh code. `refresh`: each connection keeps its
// own rotation chain (its first request exchanges a code, during the warm-up; every later one presents
// the newest refresh token).
import type { RequestSpec, Workload } from '../../lib/load-plan.js';

export interface OAuthFormOptions {
  mode: 'exchange' | 'refresh';
  /** `/oauth/token` (Feira) or `/token` (node-oidc-provider). */
  path: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  codeVerifier: string;
  codes: string[];
}

export function createWorkload(options: OAuthFormOptions): Workload {
  const form = (fields: Record<string, string>): RequestSpec => ({
    method: 'POST',
    path: options.path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, client_id: options.clientId, client_secret: options.clientSecret }).toString(),
  });
  const exchange = (code: string) =>
    form({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri, code_verifier: options.codeVerifier });
  let next = 0;
  const refreshTokens = new Map<number, string>();
  return {
    next(connection): RequestSpec {
      // Past the prepared codes the endpoint answers invalid_grant: counted as errors, never hidden.
      if (options.mode === 'exchange') return exchange(options.codes[next++ % options.codes.length] as string);
      const refreshToken = refreshTokens.get(connection);
      if (!refreshToken) return exchange(options.codes[connection] as string);
      return form({ grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    onResponse(connection, status, body) {
      if (options.mode !== 'refresh' || status !== 200) return;
      const tokens = JSON.parse(body) as { refresh_token?: string };
      if (tokens.refresh_token) refreshTokens.set(connection, tokens.refresh_token);
    },
  };
}
