import { describe, expect, it } from 'vitest';
import { closestName, suggestion } from './closest-name.ts';

const known = ['host', 'hosts', 'shard_hosts', 'password_env_var', 'max_rows_per_batch', 'write_timeout'];

describe('closestName', () => {
  it.each([
    ['hots', 'hosts'],
    ['hostt', 'host'],
    ['shard_host', 'shard_hosts'],
    ['password', 'password_env_var'],
    ['max_row_per_batch', 'max_rows_per_batch'],
    ['Write_Timeout', 'write_timeout'],
  ])('suggests %s -> %s', (typo, expected) => {
    expect(closestName(typo, known)).toBe(expected);
  });

  it('does not guess between several candidates sharing a leading word', () => {
    expect(closestName('max', ['max_rows_per_batch', 'max_bytes_per_batch'])).toBeUndefined();
  });

  it('stays silent for names far from every candidate', () => {
    expect(suggestion('compression_level', known)).toBe('');
  });

  it('formats a suggestion', () => {
    expect(suggestion('hostt', known)).toBe("; did you mean 'host'?");
  });
});
