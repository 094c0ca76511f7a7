import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { installInterrupt, prepareWritableDir } from '../harness/cli/index.ts';
import { componentLogger, describeError, fileLogger, HarnessError, PROJECT_ROOT } from '../harness/base/index.ts';
import { exitStatusOf, resultExitStatus, scenarioDirName } from '../reports/results/index.ts';
import { runChaos } from './chaos-run.ts';
import { parseSlice } from './matrix-slice.ts';
import { describeOutcome } from './nemeses/index.ts';
import { reapExternalCluster } from './reap-external.ts';
import {
  parseProfile,
  parseReplayPath,
  parseReplaySchedule,
  parseSelection,
  SELECTION_OPTIONS,
} from './cli-options.ts';
import { compareSignatures, readSignature, runInputOf } from './executor/index.ts';

const USAGE = `usage: npm run chaos -- [--profile ci|full] [--backend embedded|docker|binary|external --cluster FILE] [--seed N] [--path P]
                      [--sink CLASS[,CLASS]] [--scenario NAME[,NAME]] [--report-dir DIR] [--keep-cluster]
                      [--shape SHARDSxREPLICAS[:NAME,NAME..]] [--proxy builtin|toxiproxy] [--lanes N]
                      [--server-dedup alternate|on|off] [--shard I/N]
       npm run chaos -- --sink CLASS --scenario NAME --schedule FILE [--report-dir DIR]
                      (replays a run's schedule.json: exactly its input, one run, no generation, no shrinking)
       npm run chaos -- --backend external --cluster FILE --reap`;

/**
 * `--reap`: undoes what killed runs left in force on an attached cluster (its undo journal), one
 * line per thing undone, and runs nothing. Exit 0 when nothing is left in force, 3 when something
 * could not be undone (it stays in the journal for the next try).
 */
async function reap(clusterFile: string | undefined): Promise<number> {
  if (clusterFile === undefined)
    throw new HarnessError(
      'CLI_USAGE',
      '--reap undoes what a killed run left on an attached cluster: give --backend external --cluster FILE',
    );
  const { journal, outcomes } = await reapExternalCluster(clusterFile, componentLogger('chaos-reap'));
  if (outcomes.length === 0) process.stdout.write(`nothing to undo (${journal})\n`);
  for (const outcome of outcomes) process.stdout.write(`${describeOutcome(outcome)}\n`);
  return outcomes.some((outcome) => outcome.error !== undefined) ? 3 : 0;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      ...SELECTION_OPTIONS,
      profile: { type: 'string', default: 'ci' },
      path: { type: 'string' },
      schedule: { type: 'string' },
      'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports') },
      'keep-cluster': { type: 'boolean', default: false },
      shard: { type: 'string' },
      reap: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const profile = parseProfile(values.profile);
  const path = parseReplayPath(values);
  const replay = parseReplaySchedule(values);
  const selection = parseSelection(values, profile);
  const { seed, backend, clusterFile, classes, scenarios } = selection;
  // A stored run ran on one table setting: its replay runs on that one, whatever the mode says.
  const serverDedup = replay === undefined ? selection.serverDedup : replay.serverDedupOff ? 'off' : 'on';
  if (values.reap) return reap(clusterFile);
  // Slices of one CI matrix must share a seed, or their union would be no one run's matrix.
  if (values.shard !== undefined && values.seed === undefined)
    throw new HarnessError(
      'CLI_USAGE',
      '--shard runs one slice of a matrix the other slices share: give every slice the same --seed',
    );
  const slice = values.shard === undefined ? undefined : parseSlice(values.shard);
  const reportDir = prepareWritableDir(values['report-dir'], '--report-dir');
  const interrupt = installInterrupt({ name: 'chaos' });
  const log = fileLogger(join(reportDir, 'chaos-runner.log'), 'chaos');
  const progress = (line: string) => process.stderr.write(`chaos: ${line}\n`);
  progress(
    `profile ${profile}, seed ${seed}${path ? `, path ${path}` : ''}${values.schedule ? `, schedule ${values.schedule}` : ''}${values.shard ? `, slice ${values.shard}` : ''}`,
  );
  const run = await interrupt.guard(
    runChaos({
      profile,
      backend,
      clusterFile,
      seed,
      path,
      ...(replay === undefined ? {} : { schedule: runInputOf(replay) }),
      classes,
      scenarios,
      reportDir,
      keepCluster: values['keep-cluster'],
      serverDedup,
      log,
      progress,
      signal: interrupt.signal,
      ...(slice === undefined ? {} : { slice }),
      ...(selection.shape === undefined ? {} : { shape: selection.shape }),
      ...(selection.proxyServer === undefined ? {} : { proxyServer: selection.proxyServer }),
      lanes: selection.lanes,
    }),
  );
  for (const [name, result] of Object.entries(run.classes))
    progress(`${name} (${result.guarantee}): ${result.verdict}`);
  // A replay is faithful only if its history signs as the stored run's did (its one run is run-0).
  if (replay !== undefined && values.schedule !== undefined) {
    const replayed = join(reportDir, run.runId, scenarioDirName(classes[0]!, scenarios[0]!.name), 'run-0');
    progress(compareSignatures(readSignature(dirname(values.schedule)), readSignature(replayed)));
  }
  const exit = resultExitStatus(run);
  progress(`verdict: ${run.verdict}, exit ${exit.status} (${exit.name}) — ${join(reportDir, run.runId, 'report.md')}`);
  return interrupt.settle(exitStatusOf(run.verdict));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${describeError(error)}\n`);
    process.exit(2);
  },
);
