import { describe, expect, it } from 'vitest';
import { addressBook } from './address-book.ts';
import { passwordOf, unsetPasswordWarning } from './endpoint-client.ts';
import { endpointOf, endpointUrl } from './endpoint.ts';
import { requestCompressionFor } from './request-compression.ts';

describe('client options', () => {
  it('reads password_env_var when the client is created', () => {
    expect(passwordOf({ password_env_var: '' }, { CH_PASSWORD: 'x' })).toBe('');
    expect(passwordOf({ password_env_var: 'CH_PASSWORD' }, { CH_PASSWORD: 's3cret' })).toBe('s3cret');
    expect(passwordOf({ password_env_var: 'CH_PASSWORD' }, { CH_PASSWORD: '' })).toBe('');
    expect(passwordOf({ password_env_var: 'CH_PASSWORD' }, {})).toBe('');
    expect(unsetPasswordWarning({ password_env_var: 'CH_PASSWORD' }, {})).toMatch(
      /CH_PASSWORD, which is not set.*without a password/,
    );
    expect(unsetPasswordWarning({ password_env_var: 'CH_PASSWORD' }, { CH_PASSWORD: '' })).toBeUndefined();
    expect(unsetPasswordWarning({ password_env_var: '' }, {})).toBeUndefined();
  });

  it('maps codec onto request compression', () => {
    expect(requestCompressionFor('none')).toEqual({ request: false, response: false });
    expect(requestCompressionFor('lz4')).toEqual({ request: false, response: false });
    expect(requestCompressionFor('zstd', false)).toEqual({ request: { codec: 'gzip' }, response: false });
    expect(requestCompressionFor('zstd', true)).toEqual({ request: { codec: 'zstd' }, response: false });
  });

  it('dials through the address book and keeps the spec label', () => {
    const resolve = addressBook({ s1r1: 'http://127.0.0.1:31020', v6: 'http://[::1]:9' });
    const endpoint = endpointOf('s1r1', 8123, resolve);
    expect(endpoint.label).toBe('s1r1:8123');
    expect(endpointUrl(endpoint, false)).toBe('http://127.0.0.1:31020');
    expect(endpointUrl(endpoint, true)).toBe('https://127.0.0.1:31020');
    expect(endpointUrl(endpointOf('v6', 8123, resolve), false)).toBe('http://[::1]:9');
    expect(endpointUrl(endpointOf('ch-a-1', 8443), true)).toBe('https://ch-a-1:8443');
    expect(() => endpointOf('s9r9', 8123, resolve)).toThrow(expect.objectContaining({ code: 'SINK_ENDPOINT_UNKNOWN' }));
  });
});
