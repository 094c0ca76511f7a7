/**
 * `npm run soak -- --duration 1h [--seed N] [--report-dir DIR] [--profile full|ci]
 * [--sink A,B] [--scenario X,Y] [--backend B] [--server-dedup alternate|on|off]`: the profile (full by default) again and again,
 * the seed advancing every iteration, until the duration is spent. Each iteration leaves its own
 * report; `soak-trend.jsonl` gets one line per iteration (verdict, time, runner memory, each
 * cluster process's peak RSS, and per class the counts, INSERT latency and rows per second),
 * the series a nightly dashboard plots.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { installInterrupt, interruptExitCode } from '../harness/cli/interrupt.ts';
import { prepareWritableDir } from '../harness/cli/writable-dir.ts';
import { reapRunsOwnedBy } from '../harness/cluster/reaper.ts';
import { describeError } from '../harness/errors.ts';
import { fileLogger } from '../harness/log.ts';
import { PROJECT_ROOT } from '../harness/project-root.ts';
import { runChaos } from './chaos-run.ts';
import { parseProfile, parseSelection, SELECTION_OPTIONS } from './cli-options.ts';
import { parseDuration, trendLine } from './soak-trend.ts';

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
  const selection = parseSelection(values);
  const deadline = Date.now() + durationMs;
  const reportDir = prepareWritableDir(values['report-dir'], '--report-dir');
  const interrupt = installInterrupt({ name: 'soak' });
  const log = fileLogger(join(reportDir, 'soak.log'), 'soak');
  let failures = 0;
  for (let iteration = 1, seed = selection.seed; Date.now() < deadline && !interrupt.signal.aborted; iteration++, seed++) {
    const run = await runChaos({
      profile,
      backend: selection.backend,
      seed,
      classes: selection.classes,
      scenarios: selection.scenarios,
      reportDir,
      keepCluster: false,
      serverDedup: selection.serverDedup,
      log,
      progress: (line) => process.stderr.write(`soak #${iteration}: ${line}\n`),
      signal: interrupt.signal,
    });
    if (run.verdict !== 'pass') failures += 1;
    appendFileSync(join(reportDir, 'soak-trend.jsonl'), `${JSON.stringify(trendLine(iteration, run, Math.round(process.memoryUsage().rss / 2 ** 20)))}\n`);
  }
  const signal = interrupt.received();
  if (signal !== undefined) {
    await reapRunsOwnedBy(process.pid);
    return interruptExitCode(signal);
  }
  interrupt.dispose();
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${describeError(error)}\n`);
    process.exit(2);
  },
);
