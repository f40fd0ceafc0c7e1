import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detailLine } from '../src/commands/freight.js';
import { forwardTarget } from '../src/commands/listen.js';
import { runFeira } from './feira-process.js';

// Small things a newcomer types before anything runs: the version, a URL
// without its scheme, a port out of range. None needs a sandbox.

describe('feira command line basics', { timeout: 120_000 }, () => {
  it("feira --version prints the CLI package's version", async () => {
    const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
    const p = runFeira(['--version']);
    expect(await p.exited).toBe(0);
    expect(p.stdout().trim()).toBe(version);
  });

  it('feira listen refuses a --forward-to that is not http(s), with an example of one', async () => {
    const p = runFeira(['listen', '--forward-to', 'ftp://127.0.0.1/hooks']);
    expect(await p.exited).not.toBe(0);
    expect(p.stderr()).toContain("option '--forward-to <url>' argument 'ftp://127.0.0.1/hooks' is invalid");
    expect(p.stderr()).toContain('must be an http:// or https:// URL, not ftp:');
  });

  it('feira login --port takes a port number only', async () => {
    const p = runFeira(['login', '--port', '70000']);
    expect(await p.exited).not.toBe(0);
    expect(p.stderr()).toContain('must be a port number (1-65535)');
  });

  it('a --forward-to without a scheme is taken as http:// (as curl does), rather than failing every delivery', () => {
    expect(forwardTarget('localhost:19010/hooks')).toBe('http://localhost:19010/hooks');
    expect(forwardTarget('https://127.0.0.1:4000/hooks')).toBe('https://127.0.0.1:4000/hooks');
  });

  it('a mistyped --forward-to (htp:/bad, http:/bad, ftp://x) is refused with a clear error, not read as a host', async () => {
    expect(() => forwardTarget('htp:/bad')).toThrow(/must be an http:\/\/ or https:\/\/ URL, not htp:/);
    expect(() => forwardTarget('http:/bad')).toThrow(/must be written http:\/\/host:port\/path/);
    expect(() => forwardTarget('ftp://x.example/hooks')).toThrow(/not ftp:/);
    expect(forwardTarget('127.0.0.1:4000/hooks')).toBe('http://127.0.0.1:4000/hooks');
    const p = runFeira(['listen', '--forward-to', 'htp:/bad']);
    expect(await p.exited).not.toBe(0);
    expect(p.stderr()).toContain('not htp:');
  });

  it("a refusal the CLI relays keeps the API's field and names the flag that sets it", () => {
    expect(detailLine({ field: 'name', message: 'is required for a new table' })).toBe(
      'name: is required for a new table (--name)',
    );
    expect(detailLine({ field: 'lines.3.ZipCodeStart', message: 'must be 8 digits' })).toBe(
      'lines.3.ZipCodeStart: must be 8 digits',
    );
  });
});
