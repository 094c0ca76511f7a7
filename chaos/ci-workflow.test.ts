import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../harness/project-root.ts';

// The CI recipe shipped in the repository must keep working as the project changes: every npm
// script it runs exists, every file it runs exists, and its matrix slices cover the matrix.

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
