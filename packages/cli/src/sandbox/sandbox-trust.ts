import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultTrustedCertificates } from '@feira/platform/cli';
import { Agent, setGlobalDispatcher } from 'undici';
import { LOCAL_CA_CERT_FILE } from './local-ca-files.js';

const trusted = new Set<string>();

/**
 * Makes this process's `fetch` (and undici's `request`) trust a sandbox's local CA besides what Node trusts
 * (its roots, NODE_EXTRA_CA_CERTS): a `feira` command talking to its own data folder's sandbox over HTTPS needs
 * no setup. Only the CA of that folder is added, and only for a sandbox served over https.
 * Returns whether a CA was found.
 */
export function trustSandboxCa(dataDir: string, url: string, caFile: string | null | undefined): boolean {
  if (!url.startsWith('https:')) return false;
  let pem: string;
  try {
    pem = readFileSync(caFile ?? join(dataDir, LOCAL_CA_CERT_FILE), 'utf8');
  } catch {
    return false;
  }
  if (trusted.has(pem)) return true;
  trusted.add(pem);
  setGlobalDispatcher(new Agent({ connect: { ca: [...defaultTrustedCertificates(), ...trusted] } }));
  return true;
}
