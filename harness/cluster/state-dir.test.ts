import { describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pointCurrentAt, statePaths } from './state-dir.ts';

describe('where a run keeps its files', () => {
  it('reserves ports in one directory for the machine, whatever the state directory', () => {
    vi.stubEnv('CHAOS_PORTS_DIR', undefined);
    vi.stubEnv('CHAOS_STATE_DIR', '/tmp/state-one');
    const one = statePaths();
    vi.stubEnv('CHAOS_STATE_DIR', '/tmp/state-two');
    const two = statePaths();
    vi.unstubAllEnvs();
    expect(one.runs).not.toBe(two.runs);
    expect(one.ports).toBe(two.ports);
  });
});

describe('pointCurrentAt', () => {
  it('replaces the link another start made meanwhile, and leaves nothing of its own beside it', () => {
    const base = mkdtempSync(join(tmpdir(), 'current-link-'));
    try {
      symlinkSync('/elsewhere', join(base, 'current'));
      pointCurrentAt('/runs/a', base);
      expect(readlinkSync(join(base, 'current'))).toBe('/runs/a');
      pointCurrentAt('/runs/b', base);
      expect(readlinkSync(join(base, 'current'))).toBe('/runs/b');
      expect(readdirSync(base)).toEqual(['current']);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
    expect(existsSync(base)).toBe(false);
  });
});
