import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { describeError } from '../../harness/base/index.ts';
import { RunUndo } from '../nemeses/index.ts';
import { abortable } from './background-write.ts';
import { specPeriods, unverified, type RunJudgement } from '../../properties/judge/index.ts';
import { type RunReadTally, type SinkInsert, tallyReads } from '../../properties/checkers/index.ts';
import type { History } from '../../harness/flow/history/index.ts';
import { endRun } from './end-run.ts';
import type { ExecutedRun, PhaseTimes } from './executed-run.ts';
import { executeSchedule } from './execute-schedule.ts';
import { judgeRun } from './judge-run.ts';
import { observeRun } from './observe-run.ts';
import { singleHosts } from './target-table.ts';
import { prepareRun } from './prepare-run.ts';
import { watchFaultProxy } from './proxy-watchdog.ts';
import type { RunContext, RunPlan } from './run-plan.ts';
import { RunReaders } from './run-readers.ts';
import { RunWorkers } from './run-workers.ts';
import { writeScheduleFile } from './schedule-file.ts';
import { storeRun } from './store-run.ts';

/** One run under way: what its phases share, and what its end reads whatever phase it stopped in. */
interface RunState {
  readonly undo: RunUndo;
  readonly workers: RunWorkers;
  readonly log: Logger;
  readonly phases: PhaseTimes;
  /** Kept as soon as it exists: a stop during the store phase must not lose a check already made. */
  check?: RunJudgement;
  /** Reading the table from the traffic's start to the end of the heal; stopped on every path. */
  readers?: RunReaders;
  reads?: RunReadTally[];
}

async function timed<T>(phases: PhaseTimes, phase: keyof PhaseTimes, work: () => Promise<T>): Promise<T> {
  const start = Date.now();
  const result = await work();
  phases[phase] = Date.now() - start;
  return result;
}

/** prepare → execute → settle → observe → judge → store. */
async function runPhases(
  context: RunContext,
  plan: RunPlan,
  run: RunState,
  signal: AbortSignal,
): Promise<RunJudgement> {
  const binding = await prepareRun(context, plan, run.undo, run.log);
  const description = context.cluster.description;
  const hosts = singleHosts(description, plan.target);
  run.readers = new RunReaders(description, {
    database: plan.database,
    table: plan.table,
    replicas: hosts ?? description.shards.flatMap((shard) => shard.replicas.map((replica) => replica.name)),
    distributed: hosts === undefined,
    sequential: plan.settingProfile?.name === 'quorum_sequential',
  });
  await timed(run.phases, 'trafficMs', () => executeSchedule(context, plan, binding, run, signal));
  const history = await timed(run.phases, 'healMs', () => run.workers.settle());
  const { reads, failed } = await run.readers.stop();
  run.reads = tallyReads(reads, failed, insertsOf(history));
  return timed(run.phases, 'checkMs', async () => {
    const truth = await observeRun(description, plan, specPeriods(history.events));
    const judged = judgeRun(description, plan, { history, truth });
    run.check = judged.check;
    await storeRun(description, plan, judged);
    return judged.check;
  });
}

/**
 * One run of the plan on the cluster. Whatever way it ends (judged, violation, harness failure,
 * interrupt through `signal`, fast-check's backstop aborting it), its workers are stopped and
 * everything it did is undone, its database last; a check already made is kept.
 */
export async function executeRun(context: RunContext, plan: RunPlan, signal: AbortSignal): Promise<ExecutedRun> {
  const started = Date.now();
  mkdirSync(plan.dir, { recursive: true });
  writeScheduleFile(plan.dir, plan.input, plan.serverDedupOff);
  const log = context.log.child({ run: plan.index, database: plan.database });
  const run: RunState = {
    undo: new RunUndo(context.journal, plan.dir),
    workers: new RunWorkers(log),
    log,
    phases: { trafficMs: 0, healMs: 0, checkMs: 0 },
  };
  let infraError: string | undefined;
  const proxyDown = new AbortController();
  const unwatch = watchFaultProxy(context.cluster.description.toxiproxy, (error) => proxyDown.abort(error));
  const runSignal = AbortSignal.any([signal, proxyDown.signal]);
  try {
    // A check that could not verify the run (its query_log incomplete) is a harness failure, never a verdict.
    infraError = unverified(await abortable(runPhases(context, plan, run, runSignal), runSignal));
  } catch (error) {
    infraError = describeError(runSignal.aborted ? runSignal.reason : error);
    log.error({ err: infraError }, signal.aborted ? 'run stopped' : 'run failed in the harness');
  } finally {
    unwatch();
    await run.readers?.stop();
    infraError = await endRun(run.workers, run.undo, infraError, log);
  }
  const profile = plan.settingProfile;
  return {
    index: plan.index,
    phase: plan.phase,
    input: plan.input,
    serverDedupOff: plan.serverDedupOff,
    ...(profile === undefined ? {} : { profile: { name: profile.name, replicas: profile.replicas } }),
    ...(run.check === undefined ? {} : { check: run.check }),
    ...(infraError === undefined ? {} : { infraError }),
    ...(run.reads === undefined ? {} : { reads: run.reads }),
    durationMs: Date.now() - started,
    phases: run.phases,
  };
}

/** Every INSERT the sink invoked, with the ids it carried and when it was acknowledged, if it was. */
function insertsOf(history: History): SinkInsert[] {
  const acked = new Map(
    history.events.flatMap((event) =>
      event.type === 'insert-complete' && event.outcome === 'ok' ? [[event.queryId, event.endedAt] as const] : [],
    ),
  );
  return history.events.flatMap((event) => {
    if (event.type !== 'insert-invoke') return [];
    const ackedAt = acked.get(event.queryId);
    return [
      {
        partition: event.partition,
        batch: event.batch,
        shard: event.shard,
        ids: event.messageIds,
        ...(ackedAt === undefined ? {} : { ackedAt }),
      },
    ];
  });
}
