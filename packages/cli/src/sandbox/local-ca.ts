import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import forge from 'node-forge';
import { LOCAL_CA_CERT_FILE, LOCAL_CA_KEY_FILE } from './local-ca-files.js';
import { writePrivateFile } from './private-file.js';

export { LOCAL_CA_CERT_FILE, LOCAL_CA_KEY_FILE } from './local-ca-files.js';

// The sandbox's local certificate authority: `feira start` keeps
// one in its data folder and its outbound client trusts it, and `feira listen`
// has it sign a certificate for its HTTPS receiver, so signed (v1) webhook
// deliveries to a local receiver need no certificate work from the developer.
// Keys come from node:crypto; node-forge only writes the X.509 structures.

export interface LocalCa {
  certPem: string;
  keyPem: string;
  certFile: string;
}

export interface LeafCertificate {
  certPem: string;
  keyPem: string;
}

function rsaKeys(): { privateKeyPem: string; publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  return {
    privateKeyPem,
    privateKey: forgeKey,
    publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e),
  };
}

/** A positive serial of 16 random bytes (RFC 5280 §4.1.2.2: at most 20 octets, positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The data folder's CA, created on first use (10 years; key 0600). */
export function loadOrCreateLocalCa(dataDir: string, now: Date = new Date()): LocalCa {
  const certFile = join(dataDir, LOCAL_CA_CERT_FILE);
  const keyFile = join(dataDir, LOCAL_CA_KEY_FILE);
  const certPem = readIfPresent(certFile);
  const keyPem = readIfPresent(keyFile);
  if (certPem && keyPem) return { certPem, keyPem, certFile };

  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 10 * 365 * 86_400_000);
  const name = [
    { name: 'commonName', value: `Feira sandbox local CA (${randomBytes(4).toString('hex')})` },
    { name: 'organizationName', value: 'Feira sandbox' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const created = { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem, certFile };
  writePrivateFile(keyFile, created.keyPem);
  writePrivateFile(certFile, created.certPem);
  return created;
}

/** The loopback names every local certificate carries. */
const LOOPBACK_HOSTS = { ips: ['127.0.0.1', '::1'], dns: ['localhost'] } as const;

/** A server certificate signed by the CA (the local receiver's, the sandbox's): loopback names by default, valid 30 days. */
export function issueLeafCertificate(
  ca: Pick<LocalCa, 'certPem' | 'keyPem'>,
  hosts: { ips: readonly string[]; dns: readonly string[] } = LOOPBACK_HOSTS,
  now: Date = new Date(),
  commonName = 'feira listen',
): LeafCertificate {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem) as forge.pki.rsa.PrivateKey;
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 30 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...hosts.dns.map((value) => ({ type: 2, value })), ...hosts.ips.map((ip) => ({ type: 7, ip }))],
    },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKeyPem };
}

/**
 * What outbound calls (webhook deliveries, quote calls) trust beyond Node's own CAs, the same for every
 * process of a sandbox: `--outbound-ca`, and in sandbox mode the data folder's local CA, whose certificates
 * `feira listen` serves, so v1 deliveries to it need no setup. `feira start` and `feira dispatch` both use it.
 */
export function outboundTrustOf(config: { mode: 'sandbox' | 'strict'; dataDir: string; outboundCa: string | undefined }): {
  localCa: LocalCa | undefined;
  outboundCa: string | undefined;
} {
  const localCa = config.mode === 'sandbox' ? loadOrCreateLocalCa(config.dataDir) : undefined;
  const pems = [config.outboundCa, localCa?.certPem].filter((pem) => pem !== undefined);
  return { localCa, outboundCa: pems.length > 0 ? pems.join('\n') : undefined };
}

/**
 * The names the sandbox's own certificate carries: the loopback names, the host it listens on (a wildcard bind
 * is reached through loopback) and the public URL's host, so a browser or client trusting the CA accepts any of them.
 */
function sandboxHosts(host: string, publicUrl: string | undefined): { ips: string[]; dns: string[] } {
  const ips = new Set<string>(LOOPBACK_HOSTS.ips);
  const dns = new Set<string>(LOOPBACK_HOSTS.dns);
  const add = (name: string) => {
    const bare = name.replace(/^\[|\]$/g, '');
    if (bare === '' || bare === '0.0.0.0' || bare === '::') return;
    if (isIP(bare)) ips.add(bare);
    else dns.add(bare.toLowerCase());
  };
  add(host);
  if (publicUrl) add(new URL(publicUrl).hostname);
  return { ips: [...ips], dns: [...dns] };
}

/**
 * `feira start`'s HTTPS certificate: issued by the data folder's CA at each start (30 days, a new key each
 * time; a restart renews it), served with the CA after it so a client that trusts the CA sees the whole chain.
 */
export function sandboxServerTls(
  ca: Pick<LocalCa, 'certPem' | 'keyPem'>,
  host: string,
  publicUrl: string | undefined,
): { cert: string; key: string } {
  const leaf = issueLeafCertificate(ca, sandboxHosts(host, publicUrl), new Date(), 'Feira sandbox');
  return { cert: `${leaf.certPem}${ca.certPem}`, key: leaf.keyPem };
}
