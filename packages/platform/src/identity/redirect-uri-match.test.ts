import { describe, expect, it } from 'vitest';
import { redirectUriMatches } from './redirect-uri-match.js';

describe('redirect_uri matching', () => {
  const registered = ['https://app.example/callback', 'http://127.0.0.1/feira-cli/callback', 'http://[::1]/cb'];

  it('RFC 6749 §3.1.2.3: any other URI must equal a registered one exactly', () => {
    expect(redirectUriMatches(registered, 'https://app.example/callback')).toBe(true);
    for (const uri of ['https://app.example/callback/', 'https://app.example:443/callback', 'https://app.example/callback?x=1']) {
      expect(redirectUriMatches(registered, uri)).toBe(false);
    }
  });

  it('RFC 8252 §7.3: a registered loopback IP redirect accepts any port, with the same path and query', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53682/feira-cli/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1/feira-cli/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://[::1]:8000/cb')).toBe(true);
    for (const uri of [
      'http://127.0.0.1:53682/feira-cli/callback/evil',
      'http://127.0.0.1:53682/other',
      'http://127.0.0.1:99999/feira-cli/callback',
      'https://127.0.0.1:53682/feira-cli/callback',
      'http://localhost:53682/feira-cli/callback',
      'http://127.0.0.1.evil.example:80/feira-cli/callback',
      'http://127.0.0.1:53682@evil.example/feira-cli/callback',
    ]) {
      expect(redirectUriMatches(registered, uri), uri).toBe(false);
    }
  });

  it('RFC 8252 §7.3: a port-free match never applies to a non-loopback registered URI', () => {
    expect(redirectUriMatches(['http://app.example/cb'], 'http://app.example:8080/cb')).toBe(false);
  });
});
