// Load-generator workload: each connection keeps its own refresh-token chain
// (spec "Token refresh": form body). Its first request exchanges a code (in the
// warm-up); every later one presents the newest refresh token, as a client does
// after rotation (spec-notes I5).
import type { RequestSpec, Workload } from '../../lib/load-plan.js';
import type { PreparedCodes } from '../fixtures/authorization-codes.js';

export function createWorkload(options: PreparedCodes): Workload {
  const refreshTokens = new Map<number, string>();
  return {
    next(connection): RequestSpec {
      const refreshToken = refreshTokens.get(connection);
      if (!refreshToken) {
        return {
          method: 'POST',
          path: '/oauth/token',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'authorization_code',
            client_id: options.clientId,
            client_secret: options.clientSecret,
            redirect_uri: options.redirectUri,
            code: options.codes[connection],
          }),
        };
      }
      return {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: options.clientId,
          client_secret: options.clientSecret,
          refresh_token: refreshToken,
        }).toString(),
      };
    },
    onResponse(connection, status, body) {
      if (status !== 200) return;
      const tokens = JSON.parse(body) as { refresh_token?: string };
      if (tokens.refresh_token) refreshTokens.set(connection, tokens.refresh_token);
    },
  };
}
