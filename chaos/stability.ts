/**
 * `npm run chaos:stability -- --seeds 20 [--profile ci] [--sink ...] [--scenario ...] [--seed N]
 * [--report-dir DIR]`: the chaos job over N seeds (random and printed, or N in a row from
 * `--seed`), each on a fresh cluster; prints the verdict distribution and the coverage per class
 * and writes `stability.json`. Exit 0 only when every seed passed (a verdict that depends on the
 * seed is a bug to find), 1 when one was violated, 3 when none was but one did not pass.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { installInterrupt, prepareWritableDir } from '../harness/cli/index.ts';
import { describeError, fileLogger, HarnessError, PROJECT_ROOT, seedOf } from '../harness/base/index.ts';
import { mergeVerdicts } from '../properties/base/index.ts';
import { exitStatusOf, type JobReport } from '../reports/results/index.ts';
import { runChaos } from './chaos-run.ts';
import { parseProfile, parseSelection, SELECTION_OPTIONS } from './cli-options.ts';
import { declaresBothKinds, stabilityTable, summarizeStability } from './stability-summary.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({
    strict: true,
    options: {
      ...SELECTION_OPTIONS,
      seeds: { type: 'string', default: '20' },
      profile: { type: 'string', default: 'ci' },
      'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports', 'stability') },
    },
  });
  const count = Number(values.seeds);
  if (!Number.isSafeInteger(count) || count < 1)
    throw new HarnessError('CLI_USAGE', `--seeds takes a positive integer, got '${values.seeds}'`);
  const profile = parseProfile(values.profile);
  const selection = parseSelection(values, profile);
  const seeds = Array.from({ length: count }, (_, i) =>
    seedOf(values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : selection.seed + i),
  );
  const reportDir = prepareWritableDir(values['report-dir'], '--report-dir');
  const interrupt = installInterrupt({ name: 'stability' });
  const log = fileLogger(join(reportDir, 'stability.log'), 'stability');
  process.stderr.write(`stability: ${count} seeds (${seeds.join(', ')}), profile ${profile}\n`);
  const runs: JobReport[] = [];
  for (const [index, seed] of seeds.entries()) {
    if (interrupt.signal.aborted) break;
    const run = await interrupt.guard(
      runChaos({
        profile,
        backend: selection.backend,
        clusterFile: selection.clusterFile,
        seed,
        classes: selection.classes,
        scenarios: selection.scenarios,
        reportDir,
        keepCluster: false,
        serverDedup: selection.serverDedup,
        ...(selection.shape === undefined ? {} : { shape: selection.shape }),
        ...(selection.proxyServer === undefined ? {} : { proxyServer: selection.proxyServer }),
        lanes: selection.lanes,
        log,
        progress: (line) => log.info({ seed }, line),
        signal: interrupt.signal,
      }),
    );
    runs.push(run);
    process.stderr.write(
      `stability: [${index + 1}/${count}] seed ${seed}: ${run.verdict} in ${(run.durationMs / 1000).toFixed(0)} s (${join(reportDir, run.runId)})\n`,
    );
  }
  const stability = summarizeStability(runs, declaresBothKinds);
  writeFileSync(join(reportDir, 'stability.json'), `${JSON.stringify(stability, null, 2)}\n`);
  process.stdout.write(stabilityTable(stability));
  return interrupt.settle(exitStatusOf(mergeVerdicts(runs.map((run) => run.verdict))));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`stability: ${describeError(error)}\n`);
    process.exit(2);
  },
);
