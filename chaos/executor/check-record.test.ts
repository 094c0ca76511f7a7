import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../harness/base/index.ts';
import type { StoredRun } from '../../properties/judge/index.ts';
import { CHECK_INPUT_FILE, readCheckRecord } from './check-record.ts';
import { storeRun } from './testing/stored-run.ts';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function storedRun(): StoredRun {
  dir = mkdtempSync(join(tmpdir(), 'check-record-'));
  return storeRun(dir);
}

/** The one-line refusal `readCheckRecord` gives a damaged run, or undefined when it reads the run. */
function refusal(): string | undefined {
  try {
    readCheckRecord(dir);
    return undefined;
  } catch (error) {
    expect(isHarnessError(error, 'CHECK_RECORD_DAMAGED'), String(error)).toBe(true);
    return (error as Error).message;
  }
}

const history = () => join(dir, 'history.jsonl');
const lines = () =>
  readFileSync(history(), 'utf8')
    .split('\n')
    .filter((line) => line !== '');

describe('the stored check record', () => {
  it('gives back every field of the check input, the run table and history included', () => {
    const input = storedRun();
    const { record, input: read } = readCheckRecord(dir);
    expect(read).toEqual(input);
    expect([record.scenario, record.phase, record.verdict]).toEqual(['plain-merge-tree', 'explore', 'pass']);
    expect(record.history?.events).toBe(input.events.length);
  });

  it('refuses a record of an earlier version by its version, in one line, rather than misjudge it', () => {
    storedRun();
    const file = join(dir, CHECK_INPUT_FILE);
    const { version, ...rest } = JSON.parse(readFileSync(file, 'utf8')) as { version: number };
    writeFileSync(file, JSON.stringify({ ...rest, version: version - 1 }));
    let said: unknown;
    try {
      readCheckRecord(dir);
    } catch (error) {
      said = error;
    }
    expect(isHarnessError(said, 'CHECK_RECORD_VERSION'), String(said)).toBe(true);
    expect((said as Error).message).toMatch(/is a version 2 check record; this harness judges version 3 only/);
    expect((said as Error).message.split('\n')).toHaveLength(1);
  });

  it.each<[string, () => void, RegExp]>([
    [
      'a history whose last event was cut mid-line',
      () => writeFileSync(history(), readFileSync(history(), 'utf8').slice(0, -40)),
      /history\.jsonl ends in a cut line/,
    ],
    ['an empty history', () => writeFileSync(history(), ''), /history\.jsonl holds no event/],
    ['a missing history', () => unlinkSync(history()), /history\.jsonl is missing/],
    [
      'a history that lost whole events',
      () => writeFileSync(history(), `${lines().slice(0, -2).join('\n')}\n`),
      /history\.jsonl holds \d+ events, the run checked \d+/,
    ],
    [
      'a history with another event in place of one it checked',
      () =>
        writeFileSync(
          history(),
          `${lines()
            .map((line, i) => (i === 1 ? JSON.stringify({ ...JSON.parse(line), nextSeq: 7 }) : line))
            .join('\n')}\n`,
        ),
      /history\.jsonl is not the history the run checked \(its SHA-256 differs/,
    ],
    [
      'a truncated check-input.json',
      () =>
        writeFileSync(join(dir, 'check-input.json'), readFileSync(join(dir, 'check-input.json'), 'utf8').slice(0, 13)),
      /check-input\.json is not JSON \(/,
    ],
  ])('refuses %s, naming the file, instead of judging what is left', (_label, damage, message) => {
    storedRun();
    expect(refusal()).toBeUndefined();
    damage();
    const said = refusal();
    expect(said).toMatch(message);
    expect(said).toContain(dir);
    expect(said?.split('\n')).toHaveLength(1);
  });

  it("keeps an external cluster's description without its process commands or any URL login", () => {
    dir = mkdtempSync(join(tmpdir(), 'check-record-'));
    const description = {
      backend: 'embedded',
      toxiproxy: 'http://admin:s3cr3t@127.0.0.1:8474',
      shards: [],
      keepers: [],
      process_commands: { kill: 'kubectl --token s3cr3t delete pod "$CHAOS_MEMBER"' },
    } as unknown as StoredRun['description'];
    storeRun(dir, { description });
    const stored = readFileSync(join(dir, CHECK_INPUT_FILE), 'utf8');
    expect(stored).not.toMatch(/s3cr3t|kubectl|admin/);
    expect(readCheckRecord(dir).input.description).toMatchObject({ process_actions: ['kill'] });
  });
});
