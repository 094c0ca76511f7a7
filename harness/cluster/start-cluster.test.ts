import { describe, expect, it } from 'vitest';
import { parseBackend } from './start-cluster.ts';

describe('the backend option', () => {
  it('names every backend when it refuses one, external included', () => {
    expect(() => parseBackend('nope')).toThrow(
      "unknown backend 'nope'; choose one of embedded, docker, binary, external (the chaos job on a cluster you run: --backend external --cluster FILE)",
    );
  });
});
