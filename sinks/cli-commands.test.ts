import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSinkCli } from './cli-commands.ts';

const examplesDir = join(import.meta.dirname, 'examples');

async function run(argv: string[], files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSinkCli(argv, {
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined)
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      return text;
    },
    cwd: '/specs',
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
}

describe('sink validate', () => {
  it('validates every example spec', async () => {
    const names = (await readdir(examplesDir)).filter((name) => name.endsWith('.json'));
    expect(names.length).toBeGreaterThanOrEqual(4);
    const classes = [];
    for (const name of names) {
      const path = join(examplesDir, name);
      const result = await run(['validate', path], { [path]: await readFile(path, 'utf8') });
      expect(result, name).toMatchObject({ code: 0, err: [] });
      classes.push(result.out[0]);
    }
    expect(new Set(classes)).toEqual(
      new Set([
        'ok ClickHouseBatchingSink',
        'ok ShardedClickHouseBatchingSink',
        'ok AtLeastOnceClickHouseSink',
        'ok AtMostOnceClickHouseSink',
      ]),
    );
  });

  it('resolves a relative path against the directory the user ran npm in', async () => {
    const spec = JSON.stringify({
      sink_class_name: 'ClickHouseBatchingSink',
      name: 's',
      parameters: { host: 'h', table: 't' },
    });
    expect(await run(['validate', 'a.json'], { '/specs/a.json': spec })).toEqual({
      code: 0,
      out: ['ok ClickHouseBatchingSink'],
      err: [],
    });
  });

  it('prints every refusal and exits 1', async () => {
    const spec = JSON.stringify({
      sink_class_name: 'ClickHouseBatchingSink',
      name: 's',
      parameters: { hosts: ['h'], table: 't', port: 0 },
    });
    const result = await run(['validate', 'a.json'], { '/specs/a.json': spec });
    expect(result.code).toBe(1);
    expect(result.out).toEqual([]);
    expect(result.err.join('\n').split('\n')).toEqual([
      "Refusing the sink spec 's': 2 problem(s)",
      '  - parameters.hosts: a one-element list is refused; use "host": "h" instead (rule: hosts-single-element)',
      '  - parameters.port: must be an integer from 1 to 65535, got 0 (rule: port-range)',
    ]);
  });

  it('refuses the sharded spec when run --without the sharded class', async () => {
    const path = join(examplesDir, 'sharded-batching.json');
    const result = await run(['validate', path, '--without', 'NYT::NFlow::TShardedClickHouseBatchingSink'], {
      [path]: await readFile(path, 'utf8'),
    });
    expect(result.code).toBe(1);
    expect(result.err.join('\n')).toContain("is not in this binary's sink registry");
  });

  it('reports a missing file, bad JSON and bad usage on one line with exit 2', async () => {
    expect(await run(['validate', 'missing.json'])).toEqual({
      code: 2,
      out: [],
      err: [expect.stringMatching(/^cannot read spec file '\/specs\/missing.json': ENOENT/)],
    });
    expect(await run(['validate', 'bad.json'], { '/specs/bad.json': '{"name": ' })).toEqual({
      code: 2,
      out: [],
      err: [expect.stringMatching(/^spec file '\/specs\/bad.json' is not valid JSON: /)],
    });
    for (const argv of [
      [],
      ['check', 'a.json'],
      ['validate'],
      ['validate', 'a.json', 'b.json'],
      ['validate', 'a.json', '--without', 'Nope'],
    ]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toHaveLength(1);
    }
  });
});
