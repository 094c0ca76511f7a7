/**
 * `npm run mutants -- [--seeds 10] [--seed N] [--mutant NAME[,NAME]] [--no-control] [--report-dir DIR]`:
 * every shipped mutant against the catalogue scenario that targets it, over N seeds (random and
 * printed, or N in a row from `--seed`), with the default options, plus the unmutated sink under
 * the same scenario and seeds as a control. Prints caught / missed per mutant and writes
 * `mutants.json`. Exit 0 only when every mutant was caught in its category on every seed and
 * every control run passed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startCluster } from '../../harness/cluster/index.ts';
import { describeError, HarnessError } from '../../harness/errors.ts';
import { fileLogger } from '../../harness/log.ts';
import { PROJECT_ROOT } from '../../harness/project-root.ts';
import { BUDGETS } from '../executor/run-budget.ts';
import { runScenario } from '../executor/run-scenario.ts';
import { detection, type Detection } from './detection.ts';
import { isMutantName, MUTANTS, type MutantName } from './catalogue.ts';
import { MUTANT_TARGETS } from './targets.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({
    strict: true,
    options: {
      seeds: { type: 'string', default: '10' },
      seed: { type: 'string' },
      mutant: { type: 'string' },
      'no-control': { type: 'boolean', default: false },
      'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports', 'mutants') },
    },
  });
  const count = Number(values.seeds);
  if (!Number.isSafeInteger(count) || count < 1) throw new HarnessError('CLI_USAGE', `--seeds takes a positive integer, got '${values.seeds}'`);
  if (values.seed !== undefined && !/^\d+$/.test(values.seed)) throw new HarnessError('CLI_USAGE', `--seed takes an integer, got '${values.seed}'`);
  const mutants = (values.mutant?.split(',') ?? Object.keys(MUTANTS)).map((name) => {
    if (!isMutantName(name)) throw new HarnessError('CLI_USAGE', `unknown mutant '${name}'; the mutants are ${Object.keys(MUTANTS).join(', ')}`);
    return name;
  });
  const seeds = Array.from({ length: count }, (_, i) => (values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed) + i));
  const reportDir = resolve(values['report-dir']);
  mkdirSync(reportDir, { recursive: true });
  const log = fileLogger(join(reportDir, 'mutants.log'), 'mutants');
  process.stderr.write(`mutants: ${mutants.join(', ')} over seeds ${seeds.join(', ')}\n`);
  const cluster = await startCluster('embedded', { topology: { shards: 2, replicas: 2, keepers: 1 }, logger: log });
  const toxiproxy = new Toxiproxy(cluster.description.toxiproxy ?? '');
  const matrix: { mutant: MutantName | 'control'; scenario: string; sinkClass: string; category: string | null; detections: Detection[] }[] = [];
  try {
    const subjects: (MutantName | 'control')[] = [...mutants, ...(values['no-control'] ? [] : (['control'] as const))];
    for (const subject of subjects) {
      const targets = subject === 'control' ? [...new Map(mutants.map((m) => [`${MUTANT_TARGETS[m].sinkClass}/${MUTANT_TARGETS[m].scenario.name}`, MUTANT_TARGETS[m]])).values()] : [MUTANT_TARGETS[subject]];
      for (const { sinkClass, scenario } of targets) {
        const category = subject === 'control' ? null : MUTANTS[subject].category;
        const detections: Detection[] = [];
        for (const seed of seeds) {
          const outcome = await runScenario({
            cluster,
            toxiproxy,
            scenario,
            sinkClass,
            budget: { ...BUDGETS.ci, shrinkMs: 0 },
            seed,
            dir: join(reportDir, `${subject}__${sinkClass}__${scenario.name}`, String(seed)),
            log: log.child({ subject, seed }),
            serverDedup: 'alternate',
            ...(subject === 'control' ? {} : { mutant: subject }),
          });
          const found = detection(scenario, sinkClass, outcome, seed, category ?? undefined);
          detections.push(found);
          const state = subject === 'control' ? found.verdict : found.caughtInCategory ? `caught (${found.categories.join(', ')}) in run ${found.runsToDetection}, ${found.secondsToDetection?.toFixed(0)} s` : `MISSED: ${found.verdict}`;
          process.stderr.write(`mutants: ${subject} / ${sinkClass} / ${scenario.name} seed ${seed}: ${state}\n`);
        }
        matrix.push({ mutant: subject, scenario: scenario.name, sinkClass, category, detections });
      }
    }
  } finally {
    await cluster.down();
  }
  writeFileSync(join(reportDir, 'mutants.json'), `${JSON.stringify(matrix, null, 2)}\n`);
  const lines = ['| mutant | class | scenario | category | caught | runs to detection (median / max) | seconds (median / max) |', '|---|---|---|---|---|---|---|'];
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
  let ok = true;
  for (const row of matrix) {
    const good = row.mutant === 'control' ? row.detections.filter((d) => d.verdict === 'pass').length : row.detections.filter((d) => d.caughtInCategory).length;
    if (good !== row.detections.length) ok = false;
    const runs = row.detections.flatMap((d) => (d.runsToDetection === undefined ? [] : [d.runsToDetection]));
    const seconds = row.detections.flatMap((d) => (d.secondsToDetection === undefined ? [] : [d.secondsToDetection]));
    const caught = row.mutant === 'control' ? `${good}/${row.detections.length} pass` : `${good}/${row.detections.length}`;
    lines.push(`| ${row.mutant} | ${row.sinkClass} | ${row.scenario} | ${row.category ?? '—'} | ${caught} | ${runs.length ? `${median(runs)} / ${Math.max(...runs)}` : '—'} | ${seconds.length ? `${median(seconds).toFixed(0)} / ${Math.max(...seconds).toFixed(0)}` : '—'} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`mutants: ${describeError(error)}\n`);
    process.exit(2);
  },
);
