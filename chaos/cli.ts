import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseBackend } from '../harness/cluster/index.ts';
import { describeError, HarnessError } from '../harness/errors.ts';
import { fileLogger } from '../harness/log.ts';
import { PROJECT_ROOT } from '../harness/project-root.ts';
import { SINK_CLASS_NAMES, type SinkClassName } from '../sinks/domain/sink-class-name.ts';
import { runChaos, type Profile } from './chaos-run.ts';
import { findScenarios } from './scenarios/catalogue.ts';

const USAGE = `usage: npm run chaos -- [--profile ci|full] [--backend embedded|docker|binary] [--seed N] [--path P]
                      [--sink CLASS[,CLASS]] [--scenario NAME[,NAME]] [--report-dir DIR] [--keep-cluster]
                      [--no-server-dedup]`;

function parseClasses(value: string | undefined): SinkClassName[] {
  if (value === undefined) return [...SINK_CLASS_NAMES];
  return value.split(',').map((raw) => {
    const name = raw.trim().replace(/^NYT::NFlow::/, '').replace(/^T(?=[A-Z])/, '');
    const found = SINK_CLASS_NAMES.find((candidate) => candidate === name);
    if (found === undefined) throw new HarnessError('CLI_USAGE', `unknown sink class '${raw}'; choose from ${SINK_CLASS_NAMES.join(', ')}`);
    return found;
  });
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      profile: { type: 'string', default: 'ci' },
      backend: { type: 'string', default: 'embedded' },
      seed: { type: 'string' },
      path: { type: 'string' },
      sink: { type: 'string' },
      scenario: { type: 'string' },
      'report-dir': { type: 'string', default: join(PROJECT_ROOT, 'reports') },
      'keep-cluster': { type: 'boolean', default: false },
      'no-server-dedup': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.profile !== 'ci' && values.profile !== 'full') throw new HarnessError('CLI_USAGE', `--profile must be ci or full, got '${values.profile}'`);
  const profile: Profile = values.profile;
  if (values.seed !== undefined && !/^-?\d+$/.test(values.seed)) throw new HarnessError('CLI_USAGE', `--seed takes an integer, got '${values.seed}'`);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  const backend = parseBackend(values.backend);
  const classes = parseClasses(values.sink);
  const scenarios = findScenarios(values.scenario?.split(',').map((name) => name.trim()));
  const reportDir = resolve(values['report-dir']);
  mkdirSync(reportDir, { recursive: true });
  const log = fileLogger(join(reportDir, 'chaos-runner.log'), 'chaos');
  const progress = (line: string) => process.stderr.write(`chaos: ${line}\n`);
  progress(`profile ${profile}, seed ${seed}${values.path ? `, path ${values.path}` : ''}`);
  const run = await runChaos({
    profile,
    backend,
    seed,
    path: values.path,
    classes,
    scenarios,
    reportDir,
    keepCluster: values['keep-cluster'],
    withoutServerDedup: values['no-server-dedup'],
    scenarioTimeLimitMs: profile === 'ci' ? 240_000 : 1_800_000,
    log,
    progress,
  });
  for (const [name, result] of Object.entries(run.classes)) progress(`${name} (${result.guarantee}): ${result.verdict}`);
  progress(`verdict: ${run.verdict} — ${join(reportDir, run.runId, 'report.md')}`);
  return run.verdict === 'pass' ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${describeError(error)}\n`);
    process.exit(2);
  },
);
