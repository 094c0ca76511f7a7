/**
 * `npm run check -- DIR`: judges a stored chaos run again from its files alone (no cluster):
 * every run's `check-input.json` and `history.jsonl` through today's checkers, every scenario by
 * the live job's rule, printed beside the verdicts the run recorded. DIR is a run's report
 * directory (`reports/<run-id>`) or a report directory (its `latest` run). Exit 0 when every
 * verdict and anomaly agrees with the record, 1 when one differs, 2 on bad input or a damaged
 * run (a missing, empty, cut or replaced file, named).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeError, HarnessError } from '../harness/base/index.ts';
import { agrees, recheckReport } from './recheck.ts';

function main(argv: readonly string[]): number {
  const [given] = argv;
  if (given === undefined || argv.length > 1)
    throw new HarnessError('CLI_USAGE', 'usage: npm run check -- <reports/RUN-ID or a report directory>');
  const dir = existsSync(join(given, 'latest')) ? resolve(given, 'latest') : resolve(given);
  if (!existsSync(join(dir, 'run-result.json')))
    throw new HarnessError('CLI_USAGE', `${given} is not a chaos run's report directory (no run-result.json)`);
  const scenarios = recheckReport(dir);
  // Agreement over nothing would read as a clean re-check.
  if (!scenarios.some((scenario) => scenario.runs.length > 0))
    throw new HarnessError(
      'CLI_USAGE',
      `${dir} holds no run with a stored check (check-input.json); a merged report has none — re-check each slice's directory`,
    );
  let differ = 0;
  for (const scenario of scenarios) {
    const same = agrees(scenario);
    if (!same) differ += 1;
    const rechecked = scenario.rechecked ?? 'not recheckable (no run stored a check)';
    process.stdout.write(
      `${same ? '=' : '≠'} ${scenario.sinkClass} / ${scenario.scenario}: recorded ${scenario.recorded ?? '?'}, rechecked ${rechecked}\n`,
    );
    for (const run of scenario.runs) {
      if (run.recorded === run.rechecked && run.recordedAnomalies.join() === run.recheckedAnomalies.join()) continue;
      process.stdout.write(
        `    ${run.run} (${run.phase}): recorded ${run.recorded} [${run.recordedAnomalies.join(', ')}], rechecked ${run.rechecked} [${run.recheckedAnomalies.join(', ')}]\n`,
      );
    }
    if (!same && scenario.unjudged.length > 0)
      process.stdout.write(
        `    ${scenario.unjudged.join(', ')}: no stored check (the harness failed before it, or a signal cut the run)\n`,
      );
  }
  process.stdout.write(
    `${differ === 0 ? 'every verdict agrees with the record' : `${differ} scenario(s) differ from the record`} (${dir})\n`,
  );
  return differ === 0 ? 0 : 1;
}

try {
  process.exit(main(process.argv.slice(2)));
} catch (error) {
  process.stderr.write(`check: ${describeError(error)}\n`);
  process.exit(2);
}
