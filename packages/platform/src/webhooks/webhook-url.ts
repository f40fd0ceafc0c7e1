import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { PlatformError } from '../core/platform-error.js';
import { type RefusalCode, type RefusalValues, refuseField } from '../core/refusals.js';
import { type OutboundPolicy, refusalReason } from '../outbound/address-policy.js';
import type { WebhookVersion } from './webhook-tables.js';

/** Spec "Webhook URL rejected (v1)": the 422 names `webhook` in the body. */
function rejected<C extends RefusalCode>(code: C, ...values: RefusalValues<C>): PlatformError {
  return refuseField(code, 'webhook', 'body', ...values);
}

/**
 * Checks a subscriber URL at signup: an absolute http(s) URL without
 * credentials, HTTPS on v1 (spec "Differences between v0 and v1"), and a host
 * the SSRF policy allows (spec-notes W9). The address actually connected to
 * is checked again at every delivery, so DNS rebinding gains nothing.
 */
export async function checkWebhookUrl(raw: string, version: WebhookVersion, policy: OutboundPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw rejected('WEBHOOK_URL_NOT_ABSOLUTE');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw rejected('WEBHOOK_URL_NOT_HTTP');
  if (version === 'v1' && url.protocol !== 'https:') throw rejected('WEBHOOK_URL_NOT_HTTPS');
  if (url.username || url.password) throw rejected('WEBHOOK_URL_CREDENTIALS');
  if (url.hash) throw rejected('WEBHOOK_URL_FRAGMENT');

  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      // A name that does not resolve today may tomorrow; deliveries fail and retry until it does.
      addresses = [];
    }
  }
  for (const address of addresses) {
    const reason = refusalReason(address, policy);
    if (reason) throw rejected('WEBHOOK_URL_ADDRESS_REFUSED', { reason });
  }
  return url;
}

/**
 * A subscriber URL as pages show it (D65): scheme, host, port and path, with
 * each query value (often a token: `?token=s3cr3t`) replaced by `•••` and any
 * credentials dropped; the names stay, so a seller still tells endpoints apart.
 * What is sent is the URL as stored.
 */
export function maskedWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.replace(/\?.*$/s, '?•••');
  }
  const names = [...url.searchParams.keys()];
  const query = names.length > 0 ? `?${names.map((name) => `${encodeURIComponent(name)}=•••`).join('&')}` : '';
  return `${url.protocol}//${url.host}${url.pathname}${query}`;
}
