import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { SinkError } from '../errors.ts';
import type { StaticParameters } from '../spec/sink-spec.ts';

/** What the HTTPS agent of every client gets. */
export interface TlsSettings {
  /** Trusted roots; undefined keeps Node's bundled roots. */
  readonly ca: readonly Buffer[] | undefined;
  readonly rejectUnauthorized: boolean;
}

type TlsParameters = Pick<
  StaticParameters,
  'enable_tls' | 'tls_ca_files' | 'tls_ca_directory' | 'tls_skip_verification'
>;

const CA_FILE = /\.(pem|crt)$/i;

/**
 * Reads the CA certificates when a client set is created (so a rotated file is picked up by the
 * next session). Like clickhouse-cpp, which keeps the default CA locations beside
 * `path_to_ca_files`, the given CAs are added to the system roots rather than replacing them.
 * `tls_ca_directory` contributes every `*.pem` / `*.crt` file in it (not recursive); a directory
 * without one is refused, as is an unreadable file or one without a PEM certificate.
 */
export function loadTlsSettings(parameters: TlsParameters): TlsSettings | undefined {
  if (!parameters.enable_tls) return undefined;
  const files = [...parameters.tls_ca_files, ...caDirectoryFiles(parameters.tls_ca_directory)];
  const custom = files.map(readCertificate);
  return {
    ca: custom.length === 0 ? undefined : [...rootCertificates.map((pem) => Buffer.from(pem)), ...custom],
    rejectUnauthorized: !parameters.tls_skip_verification,
  };
}

function caDirectoryFiles(directory: string): string[] {
  if (directory === '') return [];
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    throw refusal(`tls_ca_directory '${directory}' cannot be read (${(error as Error).message})`, error);
  }
  const files = names
    .filter((name) => CA_FILE.test(name))
    .sort()
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile());
  if (files.length === 0) throw refusal(`tls_ca_directory '${directory}' holds no *.pem or *.crt file`);
  return files;
}

function readCertificate(path: string): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    throw refusal(`CA file '${path}' cannot be read (${(error as Error).message})`, error);
  }
  if (!content.includes('-----BEGIN CERTIFICATE-----')) throw refusal(`CA file '${path}' holds no PEM certificate`);
  return content;
}

function refusal(what: string, cause?: unknown): SinkError {
  return new SinkError('SINK_TLS_CONFIG_INVALID', `${what}; fix tls_ca_files / tls_ca_directory in the sink spec`, {
    cause,
  });
}
