import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTlsSettings } from './tls-settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'sink-tls-'));
const pem = (name: string) => `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`;
writeFileSync(join(dir, 'one.pem'), pem('one'));
mkdirSync(join(dir, 'cas'));
writeFileSync(join(dir, 'cas', 'b.crt'), pem('b'));
writeFileSync(join(dir, 'cas', 'a.PEM'), pem('a'));
writeFileSync(join(dir, 'cas', 'notes.txt'), 'not a certificate');
mkdirSync(join(dir, 'empty'));
writeFileSync(join(dir, 'junk.pem'), 'nothing here');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { enable_tls: true, tls_ca_files: [] as string[], tls_ca_directory: '', tls_skip_verification: false };
const custom = (settings: ReturnType<typeof loadTlsSettings>) =>
  settings?.ca?.slice(rootCertificates.length).map((ca) => ca.toString().split('\n')[1]);

describe('loadTlsSettings', () => {
  it('is undefined without enable_tls', () => {
    expect(loadTlsSettings({ ...base, enable_tls: false })).toBeUndefined();
  });

  it('keeps the system roots when no CA is given', () => {
    expect(loadTlsSettings(base)).toEqual({ ca: undefined, rejectUnauthorized: true });
  });

  it('adds tls_ca_files and every *.pem/*.crt of tls_ca_directory to the system roots', () => {
    const settings = loadTlsSettings({
      ...base,
      tls_ca_files: [join(dir, 'one.pem')],
      tls_ca_directory: join(dir, 'cas'),
    });
    expect(settings?.ca?.length).toBe(rootCertificates.length + 3);
    expect(custom(settings)).toEqual(['one', 'a', 'b']);
  });

  it('turns verification off only with tls_skip_verification', () => {
    expect(loadTlsSettings({ ...base, tls_skip_verification: true })?.rejectUnauthorized).toBe(false);
  });

  it.each([
    ['a missing file', { tls_ca_files: [join(dir, 'missing.pem')] }, /CA file '.*missing\.pem' cannot be read/],
    ['a file without a certificate', { tls_ca_files: [join(dir, 'junk.pem')] }, /junk\.pem' holds no PEM certificate/],
    ['a missing directory', { tls_ca_directory: join(dir, 'nope') }, /tls_ca_directory '.*nope' cannot be read/],
    ['a directory without CA files', { tls_ca_directory: join(dir, 'empty') }, /holds no \*\.pem or \*\.crt file/],
  ])('refuses %s', (_, overrides, message) => {
    expect(() => loadTlsSettings({ ...base, ...overrides })).toThrow(
      expect.objectContaining({ code: 'SINK_TLS_CONFIG_INVALID', message: expect.stringMatching(message) }),
    );
  });
});
