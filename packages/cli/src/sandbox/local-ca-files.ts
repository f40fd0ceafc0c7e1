// The local CA's files in a sandbox's data folder, apart from the code that makes certificates, so a
// command that only trusts the CA (every client command) does not load the certificate library.
export const LOCAL_CA_CERT_FILE = 'local-ca.pem';
export const LOCAL_CA_KEY_FILE = 'local-ca-key.pem';
