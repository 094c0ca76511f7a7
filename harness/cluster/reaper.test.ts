import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reapLeftovers, reapRunsOwnedBy, removeRunFiles } from './reaper.ts';
import { createRunDir } from './run-dir.ts';
import { listing, loseOwner, tempStateDir, writeMemberFiles } from './testing/run-dir-fixture.ts';

const MARKER = '.ch-sink-chaos-run';
let temp: ReturnType<typeof tempStateDir>;
beforeEach(() => {
  temp = tempStateDir();
  vi.stubEnv('CHAOS_STATE_DIR', temp.base);
  vi.stubEnv('CHAOS_RAM_DIR', temp.ram);
});
afterEach(() => {
  vi.unstubAllEnvs();
  temp.cleanup();
});

const topology = { shards: 1, replicas: 1, keepers: 1 };
/** A run started in `dir` (or a default one) whose members wrote their files. */
async function startedRun(dir?: string) {
  const state = await createRunDir({ backend: 'embedded', topology, proxiesEnabled: true, dir });
  writeMemberFiles(state.dir);
  return state;
}
const registered = () => (existsSync(join(temp.base, 'registry')) ? readdirSync(join(temp.base, 'registry')) : []);

describe('removing a run (down)', () => {
  it('removes a default run directory entirely', async () => {
    const state = await startedRun();
    const directory = removeRunFiles(state);
    expect(existsSync(state.dir)).toBe(false);
    expect(directory).toEqual({ fate: 'removed' });
    expect(registered()).toEqual([]);
  });

  it('keeps a file the user put in a --dir the harness created, and removes everything else', async () => {
    const state = await startedRun(join(temp.scratch, 'mycluster'));
    writeFileSync(join(state.dir, 'notes.txt'), 'mine');
    const directory = removeRunFiles(state);
    expect(listing(state.dir)).toEqual(['notes.txt']);
    expect(directory).toEqual({ fate: 'kept', reason: 'it holds files the harness did not write: notes.txt' });
    expect(registered()).toEqual([]);
  });

  it('empties an existing empty --dir but never removes it: the harness did not create it', async () => {
    const dir = join(temp.scratch, 'empty');
    mkdirSync(dir);
    const state = await startedRun(dir);
    const directory = removeRunFiles(state);
    expect(listing(dir)).toEqual([]);
    expect(directory).toEqual({ fate: 'kept', reason: 'the harness did not create it' });
  });
});

describe('the leftover reaper', () => {
  it("removes the run's data in memory with its directory", async () => {
    const state = await startedRun();
    writeFileSync(join(temp.ram, state.runId, 'part.bin'), 'data');
    loseOwner(state);
    await reapLeftovers();
    expect(existsSync(state.dir)).toBe(false);
    expect(listing(temp.ram)).toEqual([]);
  });

  it('after the owner died: keeps the user file, removes the rest and forgets the run', async () => {
    const state = await startedRun(join(temp.scratch, 'mycluster'));
    writeFileSync(join(state.dir, 'notes.txt'), 'mine');
    loseOwner(state);
    const [reaped, ...more] = await reapLeftovers();
    expect(listing(state.dir)).toEqual(['notes.txt']);
    expect(more).toEqual([]);
    expect(reaped).toMatchObject({ runId: state.runId, directory: { fate: 'kept' } });
    expect(registered()).toEqual([]);
  });

  it.each([
    ['is missing', () => undefined],
    ['names another run', () => JSON.stringify({ runId: 'another-run', createdDir: true })],
  ])('leaves a directory whose marker %s untouched, and drops only its registry link', async (_, marker) => {
    const state = await startedRun(join(temp.scratch, 'mycluster'));
    const content = marker();
    if (content === undefined) rmSync(join(state.dir, MARKER), { force: true });
    else writeFileSync(join(state.dir, MARKER), content);
    loseOwner(state);
    const before = listing(state.dir);
    const [reaped] = await reapLeftovers();
    expect(listing(state.dir)).toEqual(before);
    expect(reaped?.directory).toMatchObject({ fate: 'left-alone' });
    expect(registered()).toEqual([]);
  });
});

describe('the interrupt teardown', () => {
  it('tears down the runs this process owns and keeps the user file', async () => {
    const state = await startedRun(join(temp.scratch, 'mycluster'));
    writeFileSync(join(state.dir, 'notes.txt'), 'mine');
    const [reaped] = await reapRunsOwnedBy(process.pid);
    expect(listing(state.dir)).toEqual(['notes.txt']);
    expect(reaped).toMatchObject({ runId: state.runId, directory: { fate: 'kept' } });
    expect(registered()).toEqual([]);
  });
});
