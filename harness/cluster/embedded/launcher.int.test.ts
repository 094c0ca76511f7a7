import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeLauncherExit, ensureLauncher } from './launcher.ts';

describe('chdb-launcher exit codes', () => {
  const launcher = ensureLauncher();
  const dir = mkdtempSync(join(tmpdir(), 'launcher-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a library that is not the expected chDB build (67), without touching its memory', () => {
    // A tiny library that has the anchor symbol but nothing at the hook offsets.
    writeFileSync(join(dir, 'fake.c'), 'void chdb_connect(void) {}\n');
    execFileSync('gcc', ['-shared', '-fPIC', '-o', join(dir, 'libfake.so'), join(dir, 'fake.c')]);
    const result = spawnSync(launcher, [join(dir, 'libfake.so'), '127.0.0.2', '8123'], { encoding: 'utf8' });
    expect(result.status).toBe(67);
    expect(result.stderr).toContain('not the libchdb.so build the launcher was written for');
    expect(describeLauncherExit(67, null)).toContain('LAUNCHER_BYTES_MISMATCH');
  });

  it('refuses a library without the chDB entry points (66)', () => {
    writeFileSync(join(dir, 'other.c'), 'int unrelated(void) { return 1; }\n');
    execFileSync('gcc', ['-shared', '-fPIC', '-o', join(dir, 'libother.so'), join(dir, 'other.c')]);
    const result = spawnSync(launcher, [join(dir, 'libother.so'), '127.0.0.2', '8123'], { encoding: 'utf8' });
    expect(result.status).toBe(66);
  });

  it('reports a library it cannot load (65) and bad arguments (64)', () => {
    expect(spawnSync(launcher, [join(dir, 'missing.so'), '127.0.0.2', '8123']).status).toBe(65);
    expect(spawnSync(launcher, ['x', 'a-host-name-longer-than-twenty-two', '1']).status).toBe(64);
    expect(spawnSync(launcher, ['x', '127.0.0.2', 'port']).status).toBe(64);
  });
});
