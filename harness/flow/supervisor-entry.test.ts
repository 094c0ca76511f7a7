import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../base/index.ts';
import { sourceConfig } from './source/source-config.ts';
import { FlowSupervisor, type SupervisorOptions } from './supervisor.ts';
import { FileTable } from './testing/fake-table.ts';
import { WORKER_BUNDLE_DIR } from './worker-bundle.ts';

// Which program the supervisor forks, read from the kernel (`/proc/<pid>/cmdline`), and that the
// program it forked really hosts a sink: the real sinks' first INSERT meets an unreachable
// endpoint and refuses with their own code. No cluster: nothing listens on port 1.

let dir: string;
let supervisor: FlowSupervisor | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'flow-entry-'));
});
afterEach(async () => {
  await supervisor?.close();
  supervisor = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const spec = {
  sink_class_name: 'AtLeastOnceClickHouseSink',
  name: 'events',
  parameters: { host: 'ch-1', table: 'events' },
  dynamic_parameters: { max_insert_attempts: 1 },
};

function start(options: Partial<SupervisorOptions> = {}): FlowSupervisor {
  supervisor = new FlowSupervisor({
    dir,
    source: sourceConfig({ seed: 5, partitions: 1, messagesPerEpoch: 3 }),
    endpoints: { 'ch-1': 'http://127.0.0.1:1' },
    ...options,
  });
  return supervisor;
}

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);

/** The forked program, and the outcome of its first epoch. */
async function firstEpoch(options: Partial<SupervisorOptions>): Promise<{ argv: string[]; outcomes: unknown }> {
  const worker = await start(options).launch({ spec });
  const argv = commandLine(worker.pid);
  const outcomes = (await worker.runEpochs(1))[0];
  expect(await worker.stop()).toEqual({ code: 0, signal: null });
  return { argv, outcomes };
}

/** The real sinks' own refusal: the real ClickHouse client dialled the endpoint. */
const UNREACHABLE = [
  expect.objectContaining({
    status: 'failed',
    error: expect.stringMatching(/^Cannot start the write session .* connect ECONNREFUSED 127\.0\.0\.1:1;/),
  }),
];

describe('FlowSupervisor: the worker program it forks', { timeout: 60_000 }, () => {
  it('the real sinks: the bundled worker under plain node, named by its content, whose real sink runs', async () => {
    const { argv, outcomes } = await firstEpoch({});
    expect(argv).toEqual([process.execPath, expect.stringMatching(/\/[0-9a-f]{64}\.mjs$/)]);
    const bundle = argv[1] ?? '';
    expect(dirname(bundle)).toBe(WORKER_BUNDLE_DIR);
    expect(basename(bundle, '.mjs')).toBe(createHash('sha256').update(readFileSync(bundle)).digest('hex'));
    expect(outcomes).toEqual(UNREACHABLE);
  });

  it('a workerRoot (a mutated tree): that tree’s own bundle under plain node, with the real sinks', async () => {
    const { argv, outcomes } = await firstEpoch({ workerRoot: PROJECT_ROOT });
    expect(argv).toEqual([process.execPath, expect.stringMatching(/\/[0-9a-f]{64}\.mjs$/)]);
    expect(outcomes).toEqual(UNREACHABLE);
  });

  it('a factoryModule (fakes): worker.ts under tsx, with the factory resolved against the worker root', async () => {
    const table = new FileTable(join(dir, 'table.jsonl'));
    const worker = await start({
      factoryModule: 'harness/flow/testing/fake-sink-factory.ts',
      env: { FLOW_FAKE_TABLE: table.path },
    }).launch({ spec });
    expect(commandLine(worker.pid)).toEqual([
      process.execPath,
      '--import',
      'tsx',
      resolve(PROJECT_ROOT, 'harness/flow/worker.ts'),
    ]);
    expect((await worker.runEpochs(1))[0]).toEqual([expect.objectContaining({ status: 'committed' })]);
  });
});
