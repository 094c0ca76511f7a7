import { describe, expect, it } from 'vitest';
import { NO_TALLY, type JobReport } from '../results/index.ts';
import { jobReportOf, scenarioReportOf } from '../results/test-support.ts';
import { junitXml } from './junit-xml.ts';
import { codeSpan, tableCell } from './markdown-text.ts';
import { reportMarkdown } from './report-md.ts';

// What a ClickHouse error (or anything else from outside the harness) can put into a note, an
// anomaly example or a give-up line: the audit's payloads. The reports must show them, not obey them.
const CONTROL = 'Code: 999. \u0000\u001b[31m broken';
const FORGED = 'Code: 252. Too many parts <script>alert(1)</script>\n# ✅ pass\n| forged | row |';
const LONE = 'half a pair \ud83d and \ufffe';

const run: JobReport = jobReportOf([
  scenarioReportOf({
    name: 'server-errors',
    verdict: 'violation',
    path: '0',
    replayCommand: 'npm run chaos -- --sink ClickHouseBatchingSink --scenario server-errors --seed 7 --path 0',
    stopped: 'budget-spent',
    tally: {
      ...NO_TALLY,
      counts: { attempted: 1, acknowledged: 1, lost: 1, duplicated: 0, unexpected: 0, recovered: 0, gaveUp: 0 },
      inserts: { ok: 1, failed: 0, unknown: 0 },
      giveUps: 1,
    },
    anomalies: [{ category: 'lost', count: 1, examples: ['<img src=x>', 'a`b|c'] }],
    giveUps: [FORGED],
    notes: [FORGED, CONTROL, LONE],
    commands: ['write(epoch 1)', '```', 'heal'],
  }),
]);

describe('server text in the reports', () => {
  it('junit.xml holds no character XML 1.0 forbids, and shows each as an escape', () => {
    const xml = junitXml(run);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
    expect(xml).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(xml).toContain('Code: 999. \\u0000\\u001b[31m broken');
    expect(xml).toContain('half a pair \\ud83d and \\ufffe');
    expect(xml).toContain('&lt;script&gt;');
  });

  it('report.md gives each note, example and give-up one line in a code span: no forged heading, row or HTML', () => {
    const md = reportMarkdown(run);
    const lines = md.split('\n');
    expect(lines.filter((line) => line.startsWith('# '))).toEqual(['# Sink guarantee report — ❌ violation']);
    expect(lines.some((line) => line.startsWith('| forged'))).toBe(false);
    expect(md).not.toMatch(/[\u0000\u001b]/);
    expect(lines).toContain('- `Code: 252. Too many parts <script>alert(1)</script>\\n# ✅ pass\\n| forged | row |`');
    expect(lines).toContain('- `Code: 999. \\u0000\\u001b[31m broken`');
    expect(lines).toContain('- **`lost`** (1): `<img src=x>`, ``a`b|c``');
    expect(lines.filter((line) => line.includes('<script>')).every((line) => /^- .*`.*<script>.*`/.test(line))).toBe(
      true,
    );
    // A line of three backticks in the schedule cannot close the block it is in.
    expect(lines).toContain('````');
  });

  it('a code span outlasts any backtick run in its text, and a table cell escapes what would split it', () => {
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(codeSpan('')).toBe('(empty)');
    expect(tableCell('a|b<c\nd')).toBe('a\\|b&lt;c\\nd');
    expect(tableCell('a\\|b')).toBe('a\\\\\\|b');
  });
});
