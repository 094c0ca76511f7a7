import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_RESULT_VERSION, scenarioDirName } from '../reports/results/index.ts';
import { storedOneScenarioJob } from '../reports/results/test-support.ts';
import { storeRun } from './executor/testing/stored-run.ts';

const CHECK = fileURLToPath(new URL('./check-cli.ts', import.meta.url));

let report = '';
afterEach(() => rmSync(report, { recursive: true, force: true }));

/** A report directory with one stored run, then damaged; `npm run check` on it. */
function checkDamaged(file: 'history.jsonl' | 'check-input.json', damage: (text: string) => string) {
  report = mkdtempSync(join(tmpdir(), 'check-cli-'));
  const run = join(report, scenarioDirName('ClickHouseBatchingSink', 'unknown-outcome'), 'run-0');
  storeRun(run);
  writeFileSync(
    join(report, 'run-result.json'),
    storedOneScenarioJob('ClickHouseBatchingSink', 'unknown-outcome', 'pass'),
  );
  writeFileSync(join(run, file), damage(readFileSync(join(run, file), 'utf8')));
  return {
    file: join(run, file),
    ...spawnSync(process.execPath, ['--import', 'tsx', CHECK, report], { encoding: 'utf8', timeout: 30_000 }),
  };
}

describe('npm run check on a damaged run', () => {
  it.each<[string, 'history.jsonl' | 'check-input.json', (text: string) => string, string]>([
    ['a history cut mid-line', 'history.jsonl', (text) => text.slice(0, -40), 'ends in a cut line'],
    ['an empty history', 'history.jsonl', () => '', 'holds no event'],
    ['a truncated check-input.json', 'check-input.json', (text) => text.slice(0, 13), 'is not JSON'],
  ])('says %s is damaged, naming the file, and exits 2 (not "differs")', (_label, file, damage, said) => {
    const result = checkDamaged(file, damage);
    expect(result.status, result.stdout).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${result.file} ${said}`);
    expect(result.stderr).toContain('[CHECK_RECORD_DAMAGED]');
  });
});

describe('npm run check on a run-result.json of another version', () => {
  it('refuses it with one line naming the file and its version, and exits 2', () => {
    checkDamaged('history.jsonl', (text) => text);
    const file = join(report, 'run-result.json');
    const { version: _, ...unversioned } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(unversioned));
    const old = spawnSync(process.execPath, ['--import', 'tsx', CHECK, report], { encoding: 'utf8', timeout: 30_000 });
    expect(old.status, old.stdout).toBe(2);
    expect(old.stderr.trim().split('\n')).toHaveLength(1);
    expect(old.stderr).toContain(`${file}: version 1 (unversioned), this harness reads version ${RUN_RESULT_VERSION}`);
    expect(old.stderr).toContain('[STORED_FILE_VERSION]');
  });
});
