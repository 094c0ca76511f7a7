import type { Verdict } from '../../properties/base/index.ts';

/**
 * The exit status of the chaos commands (`chaos`, `soak`, `chaos:stability`, `chaos:merge`), for a
 * CI to act on: a broken guarantee (1) and a run that could not verify one (3) are different
 * failures, with different next steps. Ordered as a reader meets them.
 */
export const EXIT_STATUSES = [
  { status: '0', name: 'pass', meaning: 'every verdict is `pass`' },
  {
    status: '1',
    name: 'guarantee violated',
    meaning: 'a sink broke its guarantee: some verdict is `violation` (report.md gives its replay line)',
  },
  {
    status: '3',
    name: 'not verified',
    meaning:
      'no violation, but some verdict is `inconclusive` (a declared fault or event never happened), `infra-error` or `interrupted`',
  },
  {
    status: '2',
    name: 'bad input',
    meaning: 'an option, a file or a set of slices the command refuses, with one line saying why; nothing ran',
  },
  {
    status: '130 / 143',
    name: 'interrupted',
    meaning: 'a signal (SIGINT / SIGTERM) stopped the runner; the report of what finished is written',
  },
] as const;

/**
 * The exit status a merged verdict gives: violation outranks every other verdict in a merge
 * (`mergeVerdicts`), so 1 whenever anything was violated, 3 when nothing was but not all passed.
 */
export function exitStatusOf(verdict: Verdict): 0 | 1 | 3 {
  if (verdict === 'pass') return 0;
  return verdict === 'violation' ? 1 : 3;
}

/** The exit statuses as a Markdown table (README, reports/README.md). */
export const exitStatusTable = (): string =>
  [
    '| exit | outcome | meaning |',
    '|---|---|---|',
    ...EXIT_STATUSES.map((row) => `| ${row.status} | ${row.name} | ${row.meaning} |`),
  ].join('\n');

/**
 * The exit status the command that wrote a result ended with, and what it means: the signal's when
 * one stopped the run, otherwise its verdict's.
 */
export function resultExitStatus(run: {
  readonly verdict: Verdict;
  readonly interrupted?: boolean | undefined;
}): (typeof EXIT_STATUSES)[number] {
  const status = run.interrupted === true ? '130 / 143' : String(exitStatusOf(run.verdict));
  const row = EXIT_STATUSES.find((candidate) => candidate.status === status);
  if (row === undefined) throw new Error(`no exit status ${status} in EXIT_STATUSES`);
  return row;
}
