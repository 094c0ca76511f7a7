import fc from 'fast-check';
import type { Fault } from '../nemeses/fault.ts';
import { CRASH_POINTS, type CrashPoint } from '../../harness/flow/runtime/crash-points.ts';
import { arbDynamicParameters } from '../../properties/arbitraries/arb-sink-spec.ts';
import { CrashSink, FaultEpisode, ReconfigureWhileWriting, WriteEpochs, type ChaosCommand } from '../../properties/model/commands.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';

const arbWrite = fc.integer({ min: 1, max: 2 }).map((epochs) => new WriteEpochs(epochs));

function arbEpisode(arbFault: fc.Arbitrary<Fault>): fc.Arbitrary<ChaosCommand> {
  return fc
    .record({ fault: arbFault, epochs: fc.integer({ min: 1, max: 2 }), holdMs: fc.integer({ min: 600, max: 2000 }) })
    .map(({ fault, epochs, holdMs }) => new FaultEpisode(fault, epochs, holdMs));
}

/**
 * A schedule that starts with a fault episode (so every schedule, even shrunk, exercises the
 * scenario's fault family) followed by up to `more` writes and further episodes.
 */
export function arbFaultSchedule(arbFault: fc.Arbitrary<Fault>, more = 3): fc.Arbitrary<ChaosCommand[]> {
  return fc
    .tuple(arbWrite, arbEpisode(arbFault), fc.array(fc.oneof(arbWrite, arbEpisode(arbFault)), { maxLength: more }))
    .map(([write, first, rest]) => [write, first, ...rest]);
}

function arbReconfigure(sinkClass: SinkClassName): fc.Arbitrary<ChaosCommand> {
  return fc
    .record({ dynamic: arbDynamicParameters(sinkClass), epochs: fc.integer({ min: 1, max: 2 }), afterMs: fc.integer({ min: 0, max: 8 }) })
    .map(({ dynamic, epochs, afterMs }) => new ReconfigureWhileWriting(dynamic, epochs, afterMs));
}

/**
 * Live reconfiguration between unknown-outcome faults: a change of the whole dynamic section
 * (write timeout, retries, batch limits, queue limit) while INSERTs are in flight, then a fault
 * episode whose replays run under the new parameters, then more of either.
 */
export function arbReconfigureSchedule(sinkClass: SinkClassName, arbFault: fc.Arbitrary<Fault>): fc.Arbitrary<ChaosCommand[]> {
  return fc
    .tuple(arbWrite, arbReconfigure(sinkClass), arbEpisode(arbFault), fc.array(fc.oneof(arbWrite, arbReconfigure(sinkClass), arbEpisode(arbFault)), { maxLength: 2 }))
    .map(([write, reconfigure, episode, rest]) => [write, reconfigure, episode, ...rest]);
}

/** Crashes at one or two named points, with writes around them. */
export function arbCrashSchedule(points: readonly CrashPoint[] = CRASH_POINTS): fc.Arbitrary<ChaosCommand[]> {
  return fc
    .tuple(arbWrite, fc.shuffledSubarray([...points], { minLength: 1, maxLength: 2 }), arbWrite)
    .map(([before, chosen, after]) => [before, ...chosen.map((point) => new CrashSink(point)), after]);
}
