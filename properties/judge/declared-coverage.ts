import type { Coverage } from '../checkers/index.ts';
import { OWED_BY_CLASS } from '../base/index.ts';
import type { Schedule } from '../schedule/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';

/** The "sometimes" events a scenario declares for a class, beyond what its schedule holds. */
export type ScenarioCoverage = Omit<Coverage, 'faults' | 'crashPoints' | 'refusedChanges'>;

/**
 * The coverage a run owes: what its scenario declared, every fault and crash point its schedule
 * holds, every restart the schedule made to be refused, and what the class's own mechanism turns
 * on — a run without server dedup (no token), an epoch of several batches (batching) — plus
 * something delivered, for every class.
 */
export function declaredCoverage(scenario: ScenarioCoverage, sinkClass: SinkClassName, schedule: Schedule): Coverage {
  const faults = [
    ...new Set(
      schedule.flatMap((step) => {
        if (step.kind === 'fault-episode' || step.kind === 'replay-after-dedup-window') return [step.fault.type];
        return step.kind === 'fault-chain' ? [step.first.type, ...step.later.map((link) => link.fault.type)] : [];
      }),
    ),
  ];
  const crashPoints = [...new Set(schedule.flatMap((step) => (step.kind === 'crash' ? [step.point] : [])))];
  const refusedChanges = [
    ...new Set(schedule.flatMap((step) => (step.kind === 'restart-with-spec' && step.refusal ? [step.label] : []))),
  ];
  const owed = OWED_BY_CLASS[sinkClass];
  return {
    delivered: true,
    serverDedupOff: !owed.sendsToken,
    multiBatchEpoch: owed.batches,
    ...scenario,
    faults,
    crashPoints,
    refusedChanges,
  };
}
