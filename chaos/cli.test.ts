import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

describe('npm run chaos (cli.ts) on bad input', () => {
  const reportDir = mkdtempSync(join(tmpdir(), 'chaos-cli-'));
  afterAll(() => rmSync(reportDir, { recursive: true, force: true }));
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', CLI, '--report-dir', reportDir, ...args], { encoding: 'utf8', timeout: 30_000 });

  it.each([
    [['--sink', 'Nope'], "unknown sink class 'Nope'; choose from ClickHouseBatchingSink, ShardedClickHouseBatchingSink"],
    [['--scenario', 'nope'], "unknown scenario 'nope'; the catalogue has unknown-outcome"],
    [['--profile', 'nightly'], "--profile must be ci or full, got 'nightly'"],
    [['--seed', '1.5'], "--seed takes an integer, got '1.5'"],
    [['--backend', 'podman'], 'podman'],
  ])('%j exits 2 with one line naming the problem, starting nothing', (args, message) => {
    const result = run(...args);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(readdirSync(reportDir)).toEqual([]);
  });
});
