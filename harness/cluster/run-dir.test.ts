import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isHarnessError } from '../base/index.ts';
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

const create = (dir?: string) =>
  createRunDir({ backend: 'embedded', topology: { shards: 1, replicas: 1, keepers: 1 }, proxiesEnabled: true, dir });

/** The error a take of `dir` fails with; undefined when it succeeded. */
async function refusal(dir: string): Promise<unknown> {
  try {
    await create(dir);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('createRunDir', () => {
  it('gives a local run its data directory in memory, and a docker run none', async () => {
    const local = await create(join(temp.scratch, 'local'));
    expect(listing(temp.ram)).toEqual([local.runId]);
    const docker = await createRunDir({
      backend: 'docker',
      topology: { shards: 1, replicas: 1, keepers: 1 },
      proxiesEnabled: true,
      dir: join(temp.scratch, 'docker'),
    });
    expect(listing(docker.dir)).not.toContain('ram');
    expect(listing(temp.ram)).toEqual([local.runId]);
  });

  it('marks the directory it takes with the run id and whether it created it', async () => {
    const created = await create(join(temp.scratch, 'new'));
    expect(JSON.parse(readFileSync(join(created.dir, MARKER), 'utf8'))).toEqual({
      runId: created.runId,
      createdDir: true,
    });
    const empty = join(temp.scratch, 'empty');
    mkdirSync(empty);
    const taken = await create(empty);
    expect(JSON.parse(readFileSync(join(empty, MARKER), 'utf8'))).toEqual({ runId: taken.runId, createdDir: false });
  });

  it('refuses a non-empty directory without a marker with one line, creating and changing nothing', async () => {
    const dir = join(temp.scratch, 'mine');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const error = await refusal(dir);
    expect(isHarnessError(error, 'RUN_DIR_NOT_OURS')).toBe(true);
    expect((error as Error).message).toBe(
      `the run directory ${dir} is not empty (notes.txt) and holds no ${MARKER} marker: give --dir a new or empty directory (the harness deletes only what it created)`,
    );
    expect(listing(dir)).toEqual(['notes.txt']);
    expect(existsSync(temp.base)).toBe(false);
  });

  it('takes the directory of an earlier run that no longer runs, clearing its files first', async () => {
    const dir = join(temp.scratch, 'again');
    const earlier = await create(dir);
    writeMemberFiles(dir);
    loseOwner(earlier);
    const next = await create(dir);
    expect(listing(dir)).toEqual([MARKER, 'cluster.json', 'ram']);
    expect(listing(temp.ram)).toEqual([next.runId]);
    expect(JSON.parse(readFileSync(join(dir, MARKER), 'utf8'))).toEqual({ runId: next.runId, createdDir: true });
    expect(readdirSync(join(temp.base, 'registry'))).toEqual([next.runId]);
  });

  it('refuses the directory of an earlier run that holds a user file, leaving both as they were', async () => {
    const dir = join(temp.scratch, 'again');
    const earlier = await create(dir);
    writeMemberFiles(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    loseOwner(earlier);
    const before = listing(dir);
    const error = await refusal(dir);
    expect(isHarnessError(error, 'RUN_DIR_NOT_OURS')).toBe(true);
    expect((error as Error).message).toContain(`${dir} holds files the harness did not write (notes.txt)`);
    expect(listing(dir)).toEqual(before);
  });

  it('refuses the directory of a run whose owner still runs', async () => {
    const dir = join(temp.scratch, 'busy');
    const running = await create(dir);
    const error = await refusal(dir);
    expect(isHarnessError(error, 'CLUSTER_RUNNING')).toBe(true);
    expect((error as Error).message).toContain(`(run ${running.runId})`);
  });
});
