import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../cluster/index.ts';
import { dumpSystemTables } from './system-dumps.ts';

const root = mkdtempSync(join(tmpdir(), 'system-dumps-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the system-table dumps', () => {
  it('stay in their directory whatever a replica name holds', async () => {
    const dir = join(root, 'report', 'run-0', 'system-tables');
    mkdirSync(dir, { recursive: true });
    // Port 1 refuses at once: every dump becomes an error file, named after the replica too.
    const replica = (name: string) => ({
      name,
      http: 'http://127.0.0.1:1',
      direct_http: 'http://127.0.0.1:1',
      tcp: '127.0.0.1:1',
      proxies: { client: '', keeper: '', keepers: [], interserver: '' },
    });
    const description = {
      shards: [{ name: 's1', replicas: [replica('../../../escaped'), replica('s1r1')] }],
    } as unknown as ClusterDescription;
    await dumpSystemTables(description, 'db', dir);
    expect(readdirSync(root)).toEqual(['report']);
    expect(readdirSync(join(root, 'report'))).toEqual(['run-0']);
    expect(readdirSync(join(root, 'report', 'run-0'))).toEqual(['system-tables']);
    const files = readdirSync(dir);
    expect(files).toContain('%2e%2e%2f%2e%2e%2f%2e%2e%2fescaped.query_log.error.txt');
    expect(files).toContain('s1r1.query_log.error.txt');
  });
});
