/**
 * `npm run soak -- --duration 1h [--seed N] [--report-dir DIR] [--profile full|ci]
 * [--sink A,B] [--scenario X,Y] [--backend B] [--server-dedup alternate|on|off]`: the profile
 * (full by default) again and again, the seed advancing every iteration, until the duration is
 * spent. Each iteration leaves its own report; a scenario that did not pass is re-run once with
 * its seed and path, and the iteration is labelled reproduced or not reproduced.
 * Without `--shape` (and on a cluster it starts), every even iteration runs on a cluster shape
 * drawn from its seed (`drawnShape`: 1-3 shards x 1-3 replicas, shard names of several lengths),
 * the others on the default 2x2, so a night meets thin shards and unequal shard names too.
 * `soak-trend.jsonl` gets one line per iteration (verdict, time, runner memory, each cluster
 * process's peak RSS, and per class the counts, INSERT latency and rows per second), and
 * `soak-trend.html` draws the whole file after every iteration. Exits as the chaos job does on
 * the iterations' verdicts together: 1 when one was violated, 3 when none was but one did not pass.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { installInterrupt, prepareWritableDir } from '../harness/cli/index.ts';
import { describeError, fileLogger, PROJECT_ROOT, seedOf } from '../harness/base/index.ts';
import { mergeVerdicts, type Verdict } from '../properties/base/index.ts';
import { exitStatusOf, readTrendLines, type JobReport } from '../reports/results/index.ts';
import { soakTrendHtml } from '../reports/writers/index.ts';
import { runChaos, type ChaosRunOptions } from './chaos-run.ts';
import { parseProfile, parseSelection, SELECTION_OPTIONS } from './cli-options.ts';
import { drawnShape, shapeArgument } from './scenarios/index.ts';
import { findJobScenarios } from './job-catalogue.ts';
import { JUDGED_CLASS_NAMES } from '../properties/base/index.ts';
import { parseDuration, trendLine } from './soak-trend.ts';

/**
 * Re-runs every scenario of the iteration that did not pass, alone, with its seed and shrunk
 * path: reproduced when each fails the same way again. Null when nothing failed or a signal came.
 */
async function reproduce(
  run: JobReport,
  base: Omit<ChaosRunOptions, 'seed' | 'classes' | 'scenarios' | 'path'>,
  log: Logger,
): Promise<boolean | null> {
  if (run.verdict === 'pass' || run.verdict === 'interrupted' || base.signal?.aborted === true) return null;
  const failing = Object.entries(run.classes).flatMap(([sinkClass, result]) =>
    result.scenarios.filter((scenario) => scenario.verdict !== 'pass').map((scenario) => ({ sinkClass, scenario })),
  );
  let reproduced = true;
  for (const { sinkClass, scenario } of failing) {
    const again = await runChaos({
      ...base,
      seed: scenario.seed,
      path: scenario.path,
      classes: JUDGED_CLASS_NAMES.filter((name) => name === sinkClass),
      scenarios: findJobScenarios([scenario.name]),
    });
    const verdict = again.classes[sinkClass]?.verdict;
    log.info(
      { sinkClass, scenario: scenario.name, first: scenario.verdict, again: verdict },
      're-ran a failing scenario',
    );
    if (verdict !== scenario.verdict) reproduced = false;
  }
  return reproduced;
}

function writeTrendPage(reportDir: string): void {
  writeFileSync(join(reportDir, 'soak-trend.html'), soakTrendHtml(readTrendLines(join(reportDir, 'soak-trend.jsonl'))));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    strict: true,
    options: {
      ...SELECTION_OPTIONS,
      duration: { type: 'string', default: '1h' },
      profile: { type: 'string', default: 'full' },
      'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports') },
    },
  });
  const durationMs = parseDuration(values.duration);
  const profile = parseProfile(values.profile);
  const selection = parseSelection(values, profile);
  const deadline = Date.now() + durationMs;
  const reportDir = prepareWritableDir(values['report-dir'], '--report-dir');
  const interrupt = installInterrupt({ name: 'soak' });
  const log = fileLogger(join(reportDir, 'soak.log'), 'soak');
  const verdicts: Verdict[] = [];
  for (
    let iteration = 1, seed = selection.seed;
    Date.now() < deadline && !interrupt.signal.aborted;
    iteration++, seed = seedOf(seed + 1)
  ) {
    const progress = (line: string) => process.stderr.write(`soak #${iteration}: ${line}\n`);
    const shape =
      selection.shape ?? (iteration % 2 === 0 && selection.backend !== 'external' ? drawnShape(seed) : undefined);
    if (shape !== undefined) progress(`cluster shape${shapeArgument(shape).replace(' --shape', '')}`);
    const base = {
      profile,
      backend: selection.backend,
      clusterFile: selection.clusterFile,
      reportDir,
      keepCluster: false,
      serverDedup: selection.serverDedup,
      ...(shape === undefined ? {} : { shape }),
      ...(selection.proxyServer === undefined ? {} : { proxyServer: selection.proxyServer }),
      lanes: selection.lanes,
      log,
      progress,
      signal: interrupt.signal,
    };
    const run = await interrupt.guard(
      runChaos({ ...base, seed, classes: selection.classes, scenarios: selection.scenarios }),
    );
    verdicts.push(run.verdict);
    const reproduced = await interrupt.guard(
      reproduce(run, { ...base, progress: (line) => progress(`re-run: ${line}`) }, log),
    );
    if (reproduced !== null)
      progress(
        `${run.verdict} ${reproduced ? 'reproduced' : 'not reproduced'} by a re-run with the same seed and path`,
      );
    appendFileSync(
      join(reportDir, 'soak-trend.jsonl'),
      `${JSON.stringify(trendLine(iteration, run, Math.round(process.memoryUsage().rss / 2 ** 20), reproduced))}\n`,
    );
    writeTrendPage(reportDir);
  }
  return interrupt.settle(exitStatusOf(mergeVerdicts(verdicts)));
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${describeError(error)}\n`);
    process.exit(2);
  },
);
