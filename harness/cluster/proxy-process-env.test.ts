import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../base/index.ts';
import { PROXY_ALLOCATOR_ENV } from './proxy-process-env.ts';

describe('PROXY_ALLOCATOR_ENV', () => {
  const scripts = (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;

  it.each(['toxiproxy', 'bench:toxiproxy'])('is what the npm run %s script sets before starting node', (name) => {
    const script = scripts[name] ?? '';
    const prefix = script.slice(0, script.indexOf('node '));
    const assignments = Object.fromEntries(
      prefix
        .trim()
        .split(/\s+/)
        .map((pair) => pair.split('=') as [string, string]),
    );
    expect(assignments).toEqual(PROXY_ALLOCATOR_ENV);
  });
});
