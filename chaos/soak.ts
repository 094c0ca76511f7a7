/**
 * `npm run soak -- --duration 1h [--seed N] [--report-dir DIR]`: the full profile again and
 * again, the seed advancing every iteration, until the duration is spent. Each iteration leaves
 * its own report; `soak-trend.jsonl` gets one line per iteration (verdict, time, runner memory,
 * and per class the counts, INSERT latency and rows per second), the series a nightly dashboard
 * plots.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeError, HarnessError } from '../harness/errors.ts';
import { fileLogger } from '../harness/log.ts';
import { PROJECT_ROOT } from '../harness/project-root.ts';
import { SINK_CLASS_NAMES } from '../sinks/domain/sink-class-name.ts';
import { runChaos } from './chaos-run.ts';
import { CATALOGUE } from './scenarios/catalogue.ts';

export function parseDuration(text: string): number {
  const match = /^(\d+)(s|m|h)$/.exec(text);
  if (!match) throw new HarnessError('CLI_USAGE', `--duration takes a number with s, m or h (e.g. 1h), got '${text}'`);
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    strict: true,
    options: { duration: { type: 'string', default: '1h' }, seed: { type: 'string' }, 'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports') } },
  });
  const deadline = Date.now() + parseDuration(values.duration);
  const reportDir = resolve(values['report-dir']);
  mkdirSync(reportDir, { recursive: true });
  const log = fileLogger(join(reportDir, 'soak.log'), 'soak');
  let seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  let failures = 0;
  for (let iteration = 1; Date.now() < deadline; iteration++, seed++) {
    const run = await runChaos({
      profile: 'full',
      backend: 'embedded',
      seed,
      classes: SINK_CLASS_NAMES,
      scenarios: CATALOGUE,
      reportDir,
      keepCluster: false,
      scenarioTimeLimitMs: Math.max(60_000, Math.min(1_800_000, deadline - Date.now())),
      log,
      progress: (line) => process.stderr.write(`soak #${iteration}: ${line}\n`),
    });
    if (run.verdict !== 'pass') failures += 1;
    const counts = Object.fromEntries(
      Object.entries(run.classes).map(([name, result]) => [
        name,
        { verdict: result.verdict, ...result.counts, inserts: result.inserts, insert_latency_ms: result.performance.latencyMs, rows_per_second: result.performance.rowsPerSecond },
      ]),
    );
    appendFileSync(join(reportDir, 'soak-trend.jsonl'), `${JSON.stringify({ iteration, run_id: run.runId, seed, verdict: run.verdict, duration_ms: run.durationMs, rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20), classes: counts })}\n`);
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${describeError(error)}\n`);
    process.exit(2);
  },
);
