import { describe, expect, it } from 'vitest';
import type { FaultSpec } from './fault-spec.ts';
import { parseScheduleFile, type FaultCheck, type ScheduleFile } from './schedule-file.ts';
import { step } from './schedule-step.ts';
import { RESPONSE_CUT as cut } from './testing/fault-specs.ts';

const spec = {
  sink_class_name: 'ClickHouseBatchingSink',
  name: 's',
  parameters: { host: 'h' },
  dynamic_parameters: {},
};
const FILE: ScheduleFile = {
  version: 1,
  sourceSeed: 42,
  serverDedupOff: true,
  workload: {
    partitions: 2,
    messagesPerEpoch: 5,
    keySpace: 3,
    payloadBytes: { min: 4, max: 9 },
    typedColumns: ['t_int8'],
    tableShuffle: 913,
  },
  spec,
  steps: [
    step.write(1),
    step.faultEpisode(cut, 2, 700),
    step.crash('after-state'),
    step.restartWithSpec(spec, 'shard s2 added', true),
    step.holdAndWrite(2, spec, 'before'),
    step.reconfigureWhileWriting({ write_timeout: '3s' }, 1, 20),
    step.replayAfterDedupWindow(cut, 1, 1500),
    step.restartAfterGiveUp(),
    step.drain([0, 1]),
    step.faultChain(cut, [{ fault: cut, meets: 'replay' }], 1, 600),
    step.overlappingFaults([cut, { ...cut, label: 'the other' }], 0, 2, 900),
  ],
};
/** The registry's part, stubbed: one family known. */
const check: FaultCheck = (value) =>
  (value as FaultSpec).family === 'reset_peer' ? (value as FaultSpec) : { at: 'family', problem: 'is unknown' };
const parse = (file: unknown) => parseScheduleFile(JSON.stringify(file), 'run-0/schedule.json', check);
const withStep = (index: number, changed: unknown) => ({
  ...FILE,
  steps: FILE.steps.map((each, i) => (i === index ? changed : each)),
});

describe('schedule.json', () => {
  it('reads back exactly the run input that was written', () => {
    expect(parse(FILE)).toStrictEqual(FILE);
  });

  it('reads a workload stored before typed columns were drawn as one without them', () => {
    const { typedColumns: _dropped, ...older } = FILE.workload;
    expect(parse({ ...FILE, workload: older }).workload.typedColumns).toEqual([]);
  });

  it("reads a workload stored before the table's order was drawn as one in the stream's order", () => {
    const { tableShuffle: _dropped, ...older } = FILE.workload;
    expect(parse({ ...FILE, workload: older }).workload.tableShuffle).toBe(0);
  });

  it.each([
    ['a later version', { ...FILE, version: 2 }, 'version is 2; this harness reads version 1'],
    [
      'a typed column the catalogue lacks',
      { ...FILE, workload: { ...FILE.workload, typedColumns: ['t_uuid'] } },
      'workload.typedColumns must be a list of typed column names',
    ],
    [
      'a table order that is no integer',
      { ...FILE, workload: { ...FILE.workload, tableShuffle: 1.5 } },
      'workload.tableShuffle must be an integer',
    ],
    ['an unknown kind of step', withStep(2, { kind: 'teleport' }), 'steps[2].kind is "teleport", not a kind of step'],
    [
      'an unknown fault family',
      withStep(1, { ...FILE.steps[1], fault: { ...cut, family: 'x' } }),
      'steps[1].fault.family is unknown',
    ],
    [
      'a number written as text',
      withStep(0, { kind: 'write', epochs: '1' }),
      'steps[0].epochs must be an integer of at least 0, got "1"',
    ],
    [
      'a field no step of that kind has',
      withStep(0, { kind: 'write', epochs: 1, ms: 3 }),
      'steps[0].ms is not a field of it (kind, epochs)',
    ],
    [
      'an unknown crash point',
      withStep(2, { kind: 'crash', point: 'mid-air' }),
      'steps[2].point must be one of before-insert',
    ],
    [
      'a refusal flag missing',
      withStep(3, { ...FILE.steps[3], refusal: undefined }),
      'steps[3].refusal must be true or false',
    ],
    [
      'a workload without partitions',
      { ...FILE, workload: { ...FILE.workload, partitions: 0 } },
      'workload.partitions must be an integer of at least 1, got 0',
    ],
    [
      'a spec without its class',
      { ...FILE, spec: { ...spec, sink_class_name: 3 } },
      'spec.sink_class_name must be a string, got 3',
    ],
    ['no steps', { ...FILE, steps: {} }, 'steps must be a list of steps'],
    [
      'a chain whose later links are not a list',
      withStep(9, { ...FILE.steps[9], later: {} }),
      'steps[9].later must be a list of chain links',
    ],
    [
      'a chain link of an unknown family',
      withStep(9, { ...FILE.steps[9], later: [{ fault: { ...cut, family: 'x' }, meets: 'retry' }] }),
      'steps[9].later[0].fault.family is unknown',
    ],
    [
      'a chain link that meets neither a retry nor a replay',
      withStep(9, { ...FILE.steps[9], later: [{ fault: cut, meets: 'restart' }] }),
      'steps[9].later[0].meets must be "retry" or "replay", got "restart"',
    ],
    [
      'an overlapping pair of one fault',
      withStep(10, { ...FILE.steps[10], faults: [cut] }),
      'steps[10].faults must be a list of two faults',
    ],
    [
      'an overlapping pair with an unknown family',
      withStep(10, { ...FILE.steps[10], faults: [cut, { ...cut, family: 'x' }] }),
      'steps[10].faults[1].family is unknown',
    ],
    [
      'an overlapping pair healed in no order',
      withStep(10, { ...FILE.steps[10], healFirst: 2 }),
      'steps[10].healFirst must be 0 or 1, got 2',
    ],
  ])('refuses %s with one line naming the field', (_what, file, message) => {
    expect(() => parse(file)).toThrow(message);
    try {
      parse(file);
    } catch (error) {
      expect((error as Error).message).toMatch(/^run-0\/schedule\.json: /);
      expect((error as Error).message.split('\n')).toHaveLength(1);
    }
  });

  it('refuses a file that is not JSON', () => {
    expect(() => parseScheduleFile('{"version": 1,', 'f.json', check)).toThrow(/^f\.json: the file is not JSON/);
  });
});
