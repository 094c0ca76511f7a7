import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../harness/base/index.ts';
import type { ClusterDescription } from '../harness/cluster/index.ts';
import { drawnShape, JOB_SHAPE_MAX_NODES } from './scenarios/index.ts';
import { startChaos } from './testing/chaos-cli.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'chaos-keep-state-'));
const reportDir = mkdtempSync(join(tmpdir(), 'chaos-keep-reports-'));
const clusterDown = () =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', resolve(PROJECT_ROOT, 'harness/cli/cluster-cli.ts'), 'down', '--all'],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CHAOS_STATE_DIR: stateDir, CHAOS_PORTS_DIR: join(stateDir, 'ports') },
    },
  );
afterAll(() => {
  clusterDown();
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(reportDir, { recursive: true, force: true });
});

describe('--keep-cluster on a job of two shapes', () => {
  it('leaves one cluster up, the last started, and prints its description alone', async () => {
    // Seed 6 puts unknown-outcome on the default 2x2 and retry-under-fault on its drawn 3x1.
    const run = startChaos(
      [
        ...['--seed', '6', '--sink', 'AtLeastOnceClickHouseSink'],
        ...['--scenario', 'unknown-outcome,retry-under-fault', '--keep-cluster', '--report-dir', reportDir],
      ],
      stateDir,
    );
    const exit = await run.exited;
    expect(exit.code, run.stderr()).toBe(0);
    expect(run.stderr().match(/cluster up in/g)).toHaveLength(2);
    const printed = run
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(printed).toHaveLength(1);
    const description = JSON.parse(printed[0] ?? '{}') as ClusterDescription;
    expect(description.shards.map((shard) => shard.name)).toEqual(drawnShape(6, JOB_SHAPE_MAX_NODES).shardNames);
    expect(readdirSync(join(stateDir, 'registry'))).toHaveLength(1);
    expect(clusterDown().status).toBe(0);
    expect(readdirSync(join(stateDir, 'registry'))).toEqual([]);
  });
});
