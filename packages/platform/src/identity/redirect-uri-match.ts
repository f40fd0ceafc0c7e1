/**
 * Whether a requested redirect_uri is one the client registered. String
 * equality (RFC 6749 §3.1.2.3), with one exception: a registered loopback IP
 * literal over http without a port (`http://127.0.0.1/cb`, `http://[::1]/cb`)
 * accepts a request naming any port there, since a native app such as
 * `feira login` listens on whatever port is free (RFC 8252 §7.3). Path and
 * query must still be identical; `localhost` is not a loopback literal (RFC 8252 §8.3).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const loopback = /^http:\/\/(127\.0\.0\.1|\[::1\]):(\d{1,5})(?=[/?]|$)/.exec(requested);
  if (!loopback || Number(loopback[2]) > 65535) return false;
  const withoutPort = `http://${loopback[1]}${requested.slice(loopback[0].length)}`;
  return registered.includes(withoutPort);
}
