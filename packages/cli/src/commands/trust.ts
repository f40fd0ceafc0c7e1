import type { Command } from 'commander';
import { dataDirOf } from '../sandbox/find-sandbox.js';
import { loadOrCreateLocalCa } from '../sandbox/local-ca.js';

// `feira trust`: how to make tools other than `feira` trust the sandbox's HTTPS. The sandbox's certificate
// is issued by the data folder's local CA (created here if the sandbox has not run yet), so trusting that
// one CA once covers every restart. Nothing is installed for the developer: adding a root to the system
// store needs their password and their decision, so the commands are printed, one per platform.

interface TrustOptions {
  dataDir?: string;
  pem?: boolean;
}

/** The lines `feira trust` prints for the CA file `caFile`. */
function trustInstructions(caFile: string): string[] {
  return [
    `The sandbox serves HTTPS with a certificate of this data folder's local CA:`,
    `  ${caFile}`,
    '`feira` commands trust it themselves. To trust it elsewhere, once (it stays the same across restarts):',
    '',
    'Node (openid-client, oauth4webapi, the SDK, fetch), for one command or in your shell profile:',
    `  export NODE_EXTRA_CA_CERTS=${caFile}`,
    'curl:',
    `  curl --cacert ${caFile} https://127.0.0.1:8080/health`,
    '',
    'The system store (then browsers that use it: Chrome, Edge, Safari):',
    `  Debian/Ubuntu  sudo cp ${caFile} /usr/local/share/ca-certificates/feira-sandbox.crt && sudo update-ca-certificates`,
    `  Fedora/RHEL    sudo cp ${caFile} /etc/pki/ca-trust/source/anchors/feira-sandbox.pem && sudo update-ca-trust`,
    `  macOS          sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${caFile}`,
    `  Windows        certutil -addstore -f ROOT ${caFile}`,
    '  (Node reads the system store with `node --use-system-ca`, Node 22.15 and later.)',
    'Browsers with a store of their own:',
    '  Firefox        Settings → Privacy & Security → Certificates → View Certificates → Authorities → Import',
    '  Chrome on Linux chrome://certificate-manager → Local certificates → Custom → Import',
    '',
    'The CA signs only certificates for this machine (localhost, 127.0.0.1, ::1); remove it from the store when done.',
    'Plain HTTP instead: npx feira start --http',
  ];
}

export function register(program: Command): void {
  program
    .command('trust')
    .description("How to trust the sandbox's local CA (its HTTPS certificate): Node, curl, the system store, browsers")
    .option('--data-dir <path>', 'data folder of the sandbox (env FEIRA_DATA_DIR; default ./.feira)')
    .option('--pem', 'print the CA certificate itself (PEM), e.g. to pipe it into a tool')
    .action((options: TrustOptions) => {
      const ca = loadOrCreateLocalCa(dataDirOf(options.dataDir));
      if (options.pem) process.stdout.write(ca.certPem);
      else for (const line of trustInstructions(ca.certFile)) console.log(line);
    });
}
