import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataRoot, linkRunToRam, ramBaseDir, removeRamOf } from './ram-dir.ts';
import { listing } from './testing/run-dir-fixture.ts';

let root: string;
let run: string;
let ram: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ram-dir-test-'));
  run = join(root, 'run');
  ram = join(root, 'ram');
  mkdirSync(run);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('where a run keeps its data in memory', () => {
  const shm = [{ point: '/dev/shm', type: 'tmpfs' }];
  it('is CHAOS_RAM_DIR when given, nowhere when it says off', () => {
    expect(ramBaseDir({ CHAOS_RAM_DIR: '/somewhere' }, shm)).toBe('/somewhere');
    expect(ramBaseDir({ CHAOS_RAM_DIR: 'off' }, shm)).toBeUndefined();
  });

  it('is under /dev/shm only when /dev/shm is a tmpfs', () => {
    expect(ramBaseDir({}, [{ point: '/dev/shm', type: 'ext4' }])).toBeUndefined();
    expect(ramBaseDir({}, [])).toBeUndefined();
    if (existsSync('/dev/shm')) expect(ramBaseDir({}, shm)).toBe('/dev/shm/ch-sink-chaos-ram');
  });
});

describe("a run's data in memory", () => {
  it('lives behind the link, and goes with it', () => {
    linkRunToRam(run, 'r1', ram);
    expect(dataRoot(run)).toBe(join(run, 'ram'));
    mkdirSync(join(dataRoot(run), 'nodes', 's1r1', 'data'), { recursive: true });
    expect(existsSync(join(ram, 'r1', 'nodes', 's1r1', 'data'))).toBe(true);
    removeRamOf(run, 'r1');
    expect(listing(ram)).toEqual([]);
    expect(listing(run)).toEqual([]);
  });

  it('stays in the run directory when there is no memory to keep it in', () => {
    linkRunToRam(run, 'r1', undefined);
    expect(dataRoot(run)).toBe(run);
    expect(listing(run)).toEqual([]);
  });

  it('is never a directory of somebody else: a link to one costs only the link', () => {
    const theirs = join(root, 'r1');
    mkdirSync(theirs);
    writeFileSync(join(theirs, 'keep.txt'), 'mine');
    symlinkSync(theirs, join(run, 'ram'));
    removeRamOf(run, 'r1');
    expect(listing(theirs)).toEqual(['keep.txt']);
    expect(listing(run)).toEqual([]);
  });

  it('leaves nothing when the run died between the link and the directory, or before marking it', () => {
    symlinkSync(join(ram, 'r1'), join(run, 'ram'));
    removeRamOf(run, 'r1');
    expect(listing(run)).toEqual([]);
    mkdirSync(join(ram, 'r1'), { recursive: true });
    symlinkSync(join(ram, 'r1'), join(run, 'ram'));
    removeRamOf(run, 'r1');
    expect(listing(ram)).toEqual([]);
    expect(listing(run)).toEqual([]);
  });
});
