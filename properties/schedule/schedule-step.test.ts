import { describe, expect, it } from 'vitest';
import type { RawSinkSpec } from '../arbitraries/index.ts';
import type { ChaosSystem } from './chaos-system.ts';
import type { FaultSpec } from './fault-spec.ts';
import { describeStep, runSchedule, runStep, step, type Schedule } from './schedule-step.ts';
import { RESPONSE_CUT as cut } from './testing/fault-specs.ts';

const spec = {
  sink_class_name: 'ClickHouseBatchingSink',
  name: 's',
  parameters: {},
  dynamic_parameters: {},
} as RawSinkSpec;
const fault = (heals: FaultSpec['heals']): FaultSpec => ({
  family: 'latency',
  type: 'latency',
  params: { ms: 300, jitter: 20 },
  heals,
  label: "the INSERT's link, 300ms±20",
});

/** One of every kind, with the line each printed as a command object before it was data. */
const EVERY_KIND: readonly [Schedule[number], string][] = [
  [step.write(2), 'write(2)'],
  [
    step.faultEpisode(fault('insert-ended'), 1, 900),
    "latency(the INSERT's link, 300ms±20) at the first INSERT of write(1)",
  ],
  [
    step.faultEpisode(fault('after-hold'), 2, 900),
    "latency(the INSERT's link, 300ms±20) for 900ms at the first INSERT of write(2)",
  ],
  [
    step.faultEpisode(fault('writes-ended'), 1, 0),
    "latency(the INSERT's link, 300ms±20) until the writes end at the first INSERT of write(1)",
  ],
  [
    step.replayAfterDedupWindow(cut, 1, 1500),
    "reset_peer(the INSERT's response) at partition 0's first INSERT of write(1), its replay held until the other partitions wrote 1500ms later",
  ],
  [step.crash('after-insert-before-state'), 'crash sink at after-insert-before-state'],
  [
    step.reconfigureWhileWriting({ write_timeout: '3s' }, 1, 40),
    'reconfigure {"write_timeout":"3s"} 40ms into the first INSERT of write(1)',
  ],
  [step.restartWithSpec(spec, 'shard s2 added', true), 'restart with shard s2 added'],
  [
    step.holdAndWrite(2, spec, 'before: shard s2 added'),
    'restart with before: shard s2 added, write(2) with delivery held',
  ],
  [step.restartAfterGiveUp(), 'restart if the sink gave up'],
  [step.drain([0]), 'drain partition 0'],
  [step.drain([0, 1]), 'drain partitions 0, 1'],
  [
    step.faultChain(
      cut,
      [
        { fault: fault('after-hold'), meets: 'retry' },
        { fault: cut, meets: 'replay' },
      ],
      2,
      800,
    ),
    "reset_peer(the INSERT's response) at the first INSERT of write(2), then on its retry latency(the INSERT's link, 300ms±20) for 800ms, the sink killed, then on its replay reset_peer(the INSERT's response)",
  ],
  [
    step.overlappingFaults([cut, fault('after-hold')], 1, 2, 800),
    "reset_peer(the INSERT's response) and latency(the INSERT's link, 300ms±20) for 800ms at once, latency(the INSERT's link, 300ms±20) healed first, at the first INSERT of write(2)",
  ],
];
const schedule: Schedule = EVERY_KIND.map(([each]) => each);

/** A system that records the call each step makes; it stalls in the `stallsAt`-th call (1-based). */
function recordingSystem(calls: unknown[][], stallsAt = 0): ChaosSystem {
  const record =
    (name: string) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args]);
    };
  return {
    get stalled() {
      return stallsAt > 0 && calls.length >= stallsAt;
    },
    cutSchedule: (ran, steps) => {
      calls.push(['cutSchedule', ran, steps]);
    },
    writeEpochs: record('writeEpochs'),
    faultEpisode: record('faultEpisode'),
    replayAfterDedupWindow: record('replayAfterDedupWindow'),
    crashSink: record('crashSink'),
    reconfigureWhileWriting: record('reconfigureWhileWriting'),
    restartWithSpec: record('restartWithSpec'),
    holdAndWrite: record('holdAndWrite'),
    drain: record('drain'),
    restartAfterGiveUp: record('restartAfterGiveUp'),
    faultChain: record('faultChain'),
    overlappingFaults: record('overlappingFaults'),
  };
}

describe('a schedule as data', () => {
  it('prints every kind of step as the report and the replay log show it', () => {
    expect(schedule.map(describeStep)).toEqual(EVERY_KIND.map(([, line]) => line));
  });

  it('survives JSON: the stored schedule prints and runs as the generated one', async () => {
    const stored = JSON.parse(JSON.stringify(schedule)) as Schedule;
    expect(stored).toStrictEqual(schedule);
    const [generated, loaded]: unknown[][][] = [[], []];
    for (const each of schedule) await runStep(recordingSystem(generated as unknown[][]), each);
    for (const each of stored) await runStep(recordingSystem(loaded as unknown[][]), each);
    expect(loaded).toEqual(generated);
    expect(stored.map(describeStep)).toEqual(schedule.map(describeStep));
  });

  it('asks the system for exactly the call each step names', async () => {
    const calls: unknown[][] = [];
    for (const each of schedule) await runStep(recordingSystem(calls), each);
    expect(calls.map(([name]) => name)).toEqual([
      'writeEpochs',
      'faultEpisode',
      'faultEpisode',
      'faultEpisode',
      'replayAfterDedupWindow',
      'crashSink',
      'reconfigureWhileWriting',
      'restartWithSpec',
      'holdAndWrite',
      'restartAfterGiveUp',
      'drain',
      'drain',
      'faultChain',
      'overlappingFaults',
    ]);
    expect(calls[13]).toEqual(['overlappingFaults', [cut, fault('after-hold')], 1, 2, 800]);
    expect(calls[1]).toEqual(['faultEpisode', fault('insert-ended'), 1, 900]);
    expect(calls[7]).toEqual(['restartWithSpec', spec, 'shard s2 added']);
    // The links in their order: the first at the INSERT, each later one at its retry.
    expect(calls[12]).toEqual([
      'faultChain',
      cut,
      [
        { fault: fault('after-hold'), meets: 'retry' },
        { fault: cut, meets: 'replay' },
      ],
      2,
      800,
    ]);
  });
});

describe('a schedule run', () => {
  const four = [
    step.write(1),
    step.faultEpisode(fault('insert-ended'), 1, 900),
    step.write(2),
    step.crash('before-insert'),
  ];
  const names = (calls: unknown[][]) => calls.map(([name]) => name);

  it('runs every step when the sink never stalls', async () => {
    const calls: unknown[][] = [];
    await runSchedule(recordingSystem(calls), four);
    expect(names(calls)).toEqual(['writeEpochs', 'faultEpisode', 'writeEpochs', 'crashSink']);
  });

  it('ends after the step the sink stalled in, and records where', async () => {
    const calls: unknown[][] = [];
    await runSchedule(recordingSystem(calls, 2), four);
    expect(names(calls)).toEqual(['writeEpochs', 'faultEpisode', 'cutSchedule']);
    expect(calls[2]).toEqual(['cutSchedule', 2, 4]);
  });

  it('records no cut when the stall was in the last step', async () => {
    const calls: unknown[][] = [];
    await runSchedule(recordingSystem(calls, 4), four);
    expect(names(calls)).toEqual(['writeEpochs', 'faultEpisode', 'writeEpochs', 'crashSink']);
  });
});
