import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Test-only TLS material, kept in code so the published `@feira/platform/testing`
 * entry carries it: a CA ("Feira Test CA") and a certificate for `localhost`,
 * `127.0.0.1` and `::1` signed by it, valid for 100 years. Tests run HTTPS
 * webhook receivers and seller quote endpoints with `key` + `cert` and make the
 * platform trust `ca` (injected, never the system store). Never use these keys
 * anywhere else. To make new ones (the CA key is not kept):
 *
 * ```sh
 * openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 \
 *   -subj '/CN=Feira Test CA' -keyout ca-key.pem -out ca.pem
 * openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj '/CN=localhost' \
 *   -keyout server-key.pem -out server.csr
 * openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 36500 \
 *   -extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1') -out server.pem
 * ```
 */
export const testTls = {
  ca: `-----BEGIN CERTIFICATE-----
MIIBmDCCAT2gAwIBAgIUU28lwiNsjgvRr9TA+QoH8f6JXIswCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNRmVpcmEgVGVzdCBDQTAgFw0yNjExMjIwMjU2MzJaGA8yMTI2
MTAyOTAyNTYzMlowGDEWMBQGA1UEAwwNRmVpcmEgVGVzdCBDQTBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABK3sPg5AAnJjkEGctEhMycYqKZIIedxJI8bYH9hQiCWJ
XR8xj4Q2zbrfpYsrpnqGn7qU3rx9QtUdbjWyxI5kjeCjYzBhMB0GA1UdDgQWBBRi
ClveoihXMw7eYS3wItxO2SFcuzAfBgNVHSMEGDAWgBRiClveoihXMw7eYS3wItxO
2SFcuzAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBBjAKBggqhkjOPQQD
AgNJADBGAiEA0K5atMubXg0yefIf8XYeDg0i6XMvo4XurcKaDujqak0CIQDEGu5y
7vjvLHIh89K8Tksshc8q3W42EuNgtGG3atdQmQ==
-----END CERTIFICATE-----
`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgT70XLYelfVtYnlKE
igx25eU+glHnXPWXdOiOtw/FvlmhRANCAARimJJ9WfRl5zgC4KRp+IpuchA4U/Z3
Q/NOvyHIUWnvf4ZK9kYWwDGnXxsvMDnC9rF12k7G/ldqfxiQXkkWc4Cv
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBwTCCAWigAwIBAgIULk9zc07C7eszCepXibaUeWDQ/BkwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNRmVpcmEgVGVzdCBDQTAgFw0yNjExMjIwMjU2MzJaGA8yMTI2
MTAyOTAyNTYzMlowFDESMBAGA1UEAwwJbG9jYWxob3N0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEYpiSfVn0Zec4AuCkafiKbnIQOFP2d0PzTr8hyFFp73+GSvZG
FsAxp18bLzA5wvaxddpOxv5Xan8YkF5JFnOAr6OBkTCBjjAsBgNVHREEJTAjggls
b2NhbGhvc3SHBH8AAAGHEAAAAAAAAAAAAAAAAAAAAAEwCQYDVR0TBAIwADATBgNV
HSUEDDAKBggrBgEFBQcDATAdBgNVHQ4EFgQUIIy87SCvivy6GcDWlAYPsLS/A5kw
HwYDVR0jBBgwFoAUYgpb3qIoVzMO3mEt8CLcTtkhXLswCgYIKoZIzj0EAwIDRwAw
RAIgH9JMr6iHtZelRzsCkXGjX4KAVbM5i05jmtanIKxC7DkCIEyPJmhSnrjlQjsG
WagI7eaGMMncUNVVZL5fppJiktmM
-----END CERTIFICATE-----
`,
} as const;

/** Writes the test TLS material as PEM files into `dir`, for processes that take file paths (`--tls-cert`, `--outbound-ca`). */
export function writeTestTlsFiles(dir: string): { ca: string; key: string; cert: string } {
  const files = { ca: join(dir, 'test-ca.pem'), key: join(dir, 'test-server-key.pem'), cert: join(dir, 'test-server.pem') };
  writeFileSync(files.ca, testTls.ca);
  writeFileSync(files.key, testTls.key, { mode: 0o600 });
  writeFileSync(files.cert, testTls.cert);
  return files;
}
