import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const SOAK = fileURLToPath(new URL('./soak.ts', import.meta.url));
const STABILITY = fileURLToPath(new URL('./stability.ts', import.meta.url));
const MUTANTS = fileURLToPath(new URL('./mutants/cli.ts', import.meta.url));

/**
 * Runs `script` with `args` and a fresh report directory, and expects what bad input must get:
 * exit 2, one line holding `message` on stderr, and nothing created.
 */
function expectRefusedBeforeAnything(script: string, args: readonly string[], message: string): void {
  const reportDir = mkdtempSync(join(tmpdir(), 'chaos-cli-'));
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', script, '--report-dir', reportDir, ...args], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(readdirSync(reportDir)).toEqual([]);
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

describe.each([
  ['chaos', CLI],
  ['soak', SOAK],
  ['chaos:stability', STABILITY],
])('npm run %s on bad input', (_name, script) => {
  it.each([
    [
      ['--sink', 'Nope'],
      "unknown sink class 'Nope'; choose from ClickHouseBatchingSink, ShardedClickHouseBatchingSink",
    ],
    [['--scenario', 'nope'], "unknown scenario 'nope'; the catalogue has unknown-outcome"],
    [['--profile', 'nightly'], "--profile must be ci or full, got 'nightly'"],
    [['--seed', '1.5'], "--seed takes an integer, got '1.5'"],
    [['--backend', 'podman'], 'podman'],
    [['--seed', 'abc'], "--seed takes an integer, got 'abc'"],
    [['--server-dedup', 'maybe'], "--server-dedup must be alternate, on, off, got 'maybe'"],
    [['--proxy', 'envoy'], "--proxy takes builtin or toxiproxy, got 'envoy'"],
    [['--backend', 'docker', '--proxy', 'builtin'], 'the docker backend runs the real Toxiproxy image'],
  ])('%j exits 2 with one line naming the problem, starting nothing', (args, message) =>
    expectRefusedBeforeAnything(script, args, message),
  );

  it('--proxy toxiproxy without the real Toxiproxy built exits 2 with one line naming what it needs, starting nothing', () => {
    const own = process.env['CHAOS_TOXIPROXY_BINARY'];
    process.env['CHAOS_TOXIPROXY_BINARY'] = '/nonexistent/toxiproxy-server';
    try {
      expectRefusedBeforeAnything(
        script,
        ['--proxy', 'toxiproxy'],
        'CHAOS_TOXIPROXY_BINARY names /nonexistent/toxiproxy-server',
      );
    } finally {
      if (own === undefined) delete process.env['CHAOS_TOXIPROXY_BINARY'];
      else process.env['CHAOS_TOXIPROXY_BINARY'] = own;
    }
  });
});

describe.each([
  ['chaos', CLI],
  ['soak', SOAK],
  ['chaos:stability', STABILITY],
])('npm run %s without the Kafka broker installed', (_name, script) => {
  it('exits 2 with one line naming what to run when the Kafka engine is selected, starting nothing', () => {
    const own = process.env['CHAOS_KAFKA_LIB'];
    const empty = mkdtempSync(join(tmpdir(), 'chaos-kafka-lib-'));
    process.env['CHAOS_KAFKA_LIB'] = empty;
    try {
      expectRefusedBeforeAnything(
        script,
        ['--sink', 'ClickHouseKafkaEngine'],
        'broker is not installed (' + join(empty, 'kafka_2.13-4.1.1.jar') + ' not found): run scripts/setup.sh',
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
      if (own === undefined) delete process.env['CHAOS_KAFKA_LIB'];
      else process.env['CHAOS_KAFKA_LIB'] = own;
    }
  });
});

describe('npm run chaos --path', () => {
  const one = ['--sink', 'ClickHouseBatchingSink', '--scenario', 'unknown-outcome'];

  it.each([
    [['--path', '0:1', ...one], '--path replays a case of a given seed: give --seed with it'],
    [
      ['--seed', '5', '--path', 'garbage', ...one],
      "--path takes fast-check's replay path, numbers joined by ':' (e.g. 0:1), got 'garbage'",
    ],
    [['--seed', '5', '--path', '0::1', ...one], "got '0::1'"],
    [
      ['--seed', '5', '--path', '0:1'],
      '--path names a case of one class x scenario: give exactly one --sink and one --scenario',
    ],
    [
      ['--seed', '5', '--path', '0:1', '--sink', 'ClickHouseBatchingSink', '--scenario', 'unknown-outcome,sink-crash'],
      'exactly one --sink and one --scenario',
    ],
    [
      [
        '--seed',
        '5',
        '--path',
        '0:1',
        '--sink',
        'ClickHouseBatchingSink,AtLeastOnceClickHouseSink',
        '--scenario',
        'unknown-outcome',
      ],
      'exactly one --sink and one --scenario',
    ],
  ])('%j exits 2 with one line before anything starts', (args, message) =>
    expectRefusedBeforeAnything(CLI, args, message),
  );
});

describe('npm run soak on bad input', () => {
  it('refuses a duration it cannot read, before creating anything', () =>
    expectRefusedBeforeAnything(
      SOAK,
      ['--duration', '1x'],
      "soak: --duration takes a number with s, m or h (e.g. 1h), got '1x' [CLI_USAGE]",
    ));
});

describe.each([
  ['chaos:stability', STABILITY, ['--seeds', '0'], "--seeds takes a positive integer, got '0'"],
  ['mutants', MUTANTS, ['--seeds', 'ten'], "--seeds takes a positive integer, got 'ten'"],
  ['mutants', MUTANTS, ['--mutant', 'nope'], "unknown mutant 'nope'; the mutants are token-changes-on-replay"],
  ['mutants', MUTANTS, ['--lanes', '0'], "--lanes takes a whole number from 1 to 4, got '0'"],
])('npm run %s on bad input', (_name, script, args, message) => {
  it(`${args.join(' ')} exits 2 with one line, starting nothing`, () =>
    expectRefusedBeforeAnything(script, args, message));
});

describe('npm run chaos --schedule on a file it cannot replay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-schedule-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const spec = { sink_class_name: 'ClickHouseBatchingSink', name: 's', parameters: {}, dynamic_parameters: {} };
  const stored = (name: string, steps: unknown[], version = 1) => {
    const file = join(dir, name);
    const workload = { partitions: 1, messagesPerEpoch: 2, keySpace: 1, payloadBytes: { min: 4, max: 4 } };
    writeFileSync(file, JSON.stringify({ version, sourceSeed: 1, serverDedupOff: false, workload, spec, steps }));
    return file;
  };
  const latency = {
    family: 'latency',
    type: 'latency',
    params: { ms: 300, jitter: 0 },
    heals: 'insert-ended',
    label: 'l',
  };
  const episode = (fault: unknown) => ({ kind: 'fault-episode', fault, epochs: 1, holdMs: 0 });
  const selection = ['--sink', 'ClickHouseBatchingSink', '--scenario', 'network-degradation'];

  it.each([
    [[...selection, '--schedule', stored('v2.json', [], 2)], 'v2.json: version is 2; this harness reads version 1'],
    [
      [
        ...selection,
        '--schedule',
        stored('family.json', [{ kind: 'write', epochs: 1 }, episode({ ...latency, family: 'warp' })]),
      ],
      'family.json: steps[1].fault.family is "warp", not a fault family of the catalogue',
    ],
    [
      [...selection, '--schedule', stored('params.json', [episode({ ...latency, params: { ms: '300', jitter: 0 } })])],
      'params.json: steps[0].fault.params.ms must be a number, got "300"',
    ],
    [
      [...selection, '--schedule', stored('kind.json', [{ kind: 'nap' }])],
      'kind.json: steps[0].kind is "nap", not a kind of step',
    ],
    [
      ['--sink', 'AtLeastOnceClickHouseSink', '--scenario', 'network-degradation', '--schedule', stored('ok.json', [])],
      'starts a ClickHouseBatchingSink (spec.sink_class_name), not the --sink AtLeastOnceClickHouseSink',
    ],
    [[...selection, '--seed', '1', '--path', '0', '--schedule', stored('both.json', [])], 'give one of them'],
    [
      ['--scenario', 'network-degradation', '--schedule', stored('nosink.json', [])],
      'give exactly one --sink and one --scenario',
    ],
    [[...selection, '--schedule', join(dir, 'absent.json')], 'ENOENT'],
  ])('%j exits 2 with one line naming what is wrong, before any cluster starts', (args, message) =>
    expectRefusedBeforeAnything(CLI, args, message),
  );
});
