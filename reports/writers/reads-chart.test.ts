import { describe, expect, it } from 'vitest';
import { readsPanel } from './reads-chart.ts';

describe('readsPanel', () => {
  it('draws every read at the parts it saw whole, the split and fractured ones marked, each window shaded', () => {
    const html = readsPanel([
      {
        operation: 'MOVE',
        reads: 3,
        failedReads: 0,
        fractured: 1,
        loads: 1,
        splitReads: 1,
        windowMs: { p50: 40, p95: 40, max: 40 },
        shown: {
          run: 0,
          durationMs: 1000,
          parts: 4,
          windows: [{ load: 2, fromMs: 500, toMs: 540 }],
          reads: [
            { atMs: 100, replica: 's1r1', seen: 2, split: false, fractured: false },
            { atMs: 510, replica: 's1r2', seen: 3, split: true, fractured: false },
            { atMs: 900, replica: 's1r1', seen: 3, split: false, fractured: true },
          ],
        },
      },
    ]);
    expect(html).toContain('MOVE: 3 reads (0 failed), 1 fractured; window p50 40 ms');
    expect(html.match(/<circle/g)).toHaveLength(3);
    expect(html).toContain('fill="#ef6c00"');
    expect(html).toContain('fill="#c62828"');
    expect(html).toContain('load 2: seen in some tables and not the others for 40 ms');
  });

  it('says so when no load spanned tables, and draws nothing it has no run for', () => {
    const html = readsPanel([
      { operation: 'REPLACE', reads: 5, failedReads: 1, fractured: 0, loads: 0, splitReads: 0, windowMs: null },
    ]);
    expect(html).toContain('no load spanned tables');
    expect(html).not.toContain('<svg');
  });
});
