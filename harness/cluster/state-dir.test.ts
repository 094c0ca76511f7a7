import { describe, expect, it, vi } from 'vitest';
import { statePaths } from './state-dir.ts';

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
