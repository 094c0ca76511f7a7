import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

export interface TestCertificates {
  /** The CA that signed the server certificate. */
  readonly caFile: string;
  /** A CA that signed nothing the server presents. */
  readonly otherCaFile: string;
  readonly serverKey: Buffer;
  readonly serverCert: Buffer;
}

/** A CA and a server certificate for 127.0.0.1 / localhost, made with the openssl CLI (EC keys: fast). */
export function makeTestCertificates(dir: string): TestCertificates {
  mkdirSync(dir, { recursive: true });
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=sink test CA');
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'other-ca.key',
    '-out',
    'other-ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=unrelated CA',
  );
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(
    join(dir, 'san.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
  return {
    caFile: join(dir, 'ca.pem'),
    otherCaFile: join(dir, 'other-ca.pem'),
    serverKey: readFileSync(join(dir, 'server.key')),
    serverCert: readFileSync(join(dir, 'server.pem')),
  };
}

/**
 * A real TLS listener in front of a node's plain HTTP port (the embedded engine has no TLS
 * listener): each TLS connection is piped to a fresh TCP connection to the node.
 */
export async function startTlsTerminator(
  certificates: TestCertificates,
  upstreamPort: number,
): Promise<{ readonly port: number; close(): Promise<void> }> {
  const server: Server = createServer({ key: certificates.serverKey, cert: certificates.serverCert }, (secure) => {
    const plain = connect(upstreamPort, '127.0.0.1');
    secure.pipe(plain).pipe(secure);
    secure.on('error', () => plain.destroy());
    plain.on('error', () => secure.destroy());
  });
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
