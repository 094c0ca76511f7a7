import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../harness/base/index.ts';

// The CI recipe shipped in the repository must keep working as the project changes: every npm
// script it runs exists, every file it runs exists, its matrix slices cover the matrix, and a
// broken guarantee and a run that could not verify one fail it with different messages.

interface Step {
  readonly run?: string;
  readonly uses?: string;
  readonly with?: Record<string, unknown>;
}
interface Job {
  readonly steps: readonly Step[];
  readonly strategy?: { readonly matrix?: { readonly shard?: readonly number[] } };
}

const workflow = parse(readFileSync(join(PROJECT_ROOT, '.github', 'workflows', 'chaos.yml'), 'utf8')) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};
const scripts = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;
const runs = Object.values(workflow.jobs).flatMap((job) =>
  job.steps.flatMap((step) => (step.run === undefined ? [] : [step.run])),
);

describe('the GitHub Actions workflow', () => {
  it('runs on pull requests and nightly', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['pull_request', 'schedule']));
  });

  it('runs only npm scripts that package.json defines, and files that exist', () => {
    const npmScripts = runs.flatMap((run) => [...run.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1] ?? ''));
    expect(npmScripts).toEqual(expect.arrayContaining(['chaos', 'chaos:merge', 'soak']));
    for (const script of npmScripts) expect(scripts, `npm run ${script}`).toHaveProperty([script]);
    const files = runs.flatMap((run) => [...run.matchAll(/bash ([\w./-]+)/g)].map((match) => match[1] ?? ''));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(existsSync(join(PROJECT_ROOT, file)), file).toBe(true);
  });

  it('slices the matrix 1..N with one shared seed, and merges every slice', () => {
    const chaos = workflow.jobs.chaos;
    const shards = chaos?.strategy?.matrix?.shard ?? [];
    const command = chaos?.steps.find((step) => step.run?.includes('npm run chaos --'))?.run ?? '';
    const count = Number(/--shard \$\{\{ matrix\.shard \}\}\/(\d+)/.exec(command)?.[1]);
    expect(shards).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(command).toMatch(/--seed \$\{\{ needs\.seed\.outputs\.seed \}\}/);
    const upload = chaos?.steps.find((step) => step.uses?.startsWith('actions/upload-artifact'));
    expect(upload?.with?.path).toBe('reports/');
    expect(command).toContain('--report-dir reports');
    expect(runs.some((run) => run.includes('npm run chaos:merge') && run.includes('run-result.json'))).toBe(true);
    expect(runs.some((run) => run.includes('GITHUB_STEP_SUMMARY') && run.includes('report.md'))).toBe(true);
  });
});

const CHAOS_COMMAND = /npm run (chaos|chaos:merge|soak)\b/;
const EXIT_MEANING = join(PROJECT_ROOT, '.ci', 'exit-meaning');

/** Every line of a script that runs a chaos command keeps its status and hands it to .ci/exit-meaning. */
function statusHandled(script: string): string[] {
  const lines = script.split('\n');
  return lines.flatMap((line, index) => {
    if (!CHAOS_COMMAND.test(line) || line.trimStart().startsWith('#') || line.includes('.ci/exit-meaning')) return [];
    const kept = line.trimEnd().endsWith('|| status=$?');
    const told = lines.slice(index + 1).some((later) => later.includes('bash .ci/exit-meaning "$status"'));
    return kept && told ? [] : [line.trim()];
  });
}

describe('the exit status in CI', () => {
  it('every chaos command of the workflow and of .ci/run goes through .ci/exit-meaning with its status', () => {
    expect(runs.filter((run) => CHAOS_COMMAND.test(run))).toHaveLength(3);
    for (const run of runs) expect(statusHandled(run), run).toEqual([]);
    expect(statusHandled(readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8'))).toEqual([]);
  });

  it('.ci/exit-meaning fails on 1 and 3 alike, with different annotations, and passes 0', () => {
    const meaning = (status: number) =>
      spawnSync('bash', [EXIT_MEANING, String(status), 'npm run chaos', 'reports/latest/report.md'], {
        encoding: 'utf8',
        env: { ...process.env, GITHUB_ACTIONS: 'true' },
      });
    const violated = meaning(1);
    const unverified = meaning(3);
    expect([violated.status, unverified.status, meaning(0).status]).toEqual([1, 3, 0]);
    expect(violated.stdout).toMatch(
      /^::error title=guarantee violated::npm run chaos: a sink broke its guarantee \(replay line in reports\/latest\/report\.md/,
    );
    expect(unverified.stdout).toMatch(
      /^::error title=not verified::npm run chaos: the harness could not verify the guarantees/,
    );
    expect(meaning(0).stdout).toBe('');
  });

  it('.ci/exit-meaning prints the report\'s "Not passing" section on 1 and 3, for a log that outlives the machine', () => {
    const dir = mkdtempSync(join(tmpdir(), 'exit-meaning-'));
    const report = join(dir, 'report.md');
    writeFileSync(report, '# report\n\n### Not passing\n\n- `lost 6 rows`\n\nPeak RSS: 1\n\nBackend limits\n');
    const meaning = (status: number) =>
      spawnSync('bash', [EXIT_MEANING, String(status), 'npm run chaos', report], { encoding: 'utf8' });
    expect(meaning(1).stderr).toContain('- `lost 6 rows`');
    expect(meaning(3).stderr).toContain('### Not passing');
    expect(meaning(3).stderr).not.toContain('Backend limits');
    expect(meaning(0).stderr).toBe('');
    rmSync(dir, { recursive: true });
  });
});
