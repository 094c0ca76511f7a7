import type { Verdict } from '../../properties/base/index.ts';
import { isSinkClassName } from '../../sinks/index.ts';
import type { MedianAndTail, RecoveryFigures, Tally } from '../results/index.ts';

/** One colour per verdict, shared by every HTML page. */
export const VERDICT_COLOUR: Readonly<Record<Verdict, string>> = {
  pass: '#2e7d32',
  violation: '#c62828',
  inconclusive: '#ef6c00',
  interrupted: '#546e7a',
  'infra-error': '#6a1b9a',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** `landed/absent`, with the unresolved ones named when there are any. */
export const unknownSplit = (unknown: Tally['unknownOutcomes']) =>
  `${unknown.landed}/${unknown.absent}${unknown.unresolved > 0 ? ` (+${unknown.unresolved} unresolved)` : ''}`;

/** Classes without a token: how many runs had the server's block dedup off, and what it would have hidden. */
export const dedupStatement = (dedup: Tally['serverDedup']) =>
  dedup === null
    ? 'token (window kept)'
    : `off in ${dedup.offRuns}/${dedup.offRuns + dedup.onRuns} runs; ${dedup.acceptedTwice} accepted twice`;

const seconds = (figure: MedianAndTail | null) =>
  figure === null ? '—' : `${(figure.p50 / 1000).toFixed(1)} / ${(figure.p95 / 1000).toFixed(1)}`;

/** The recovery table's header and one class's cells, shared by report.md and report.html. */
export const RECOVERY_HEADER = [
  'class',
  'heals watched',
  'stalled',
  'heal → first ok INSERT p50 / p95 s',
  'heal → drained p50 / p95 s',
  'largest bound s',
] as const;

export const recoveryCells = (name: string, recovery: RecoveryFigures): string[] => [
  name,
  String(recovery.heals),
  String(recovery.stalled),
  seconds(recovery.firstOkMs),
  seconds(recovery.drainedMs),
  recovery.boundMs === null ? '—' : (recovery.boundMs / 1000).toFixed(1),
];

/**
 * The classes the recovery table has rows for: every sink. ClickHouse's Kafka engine has no
 * sink to watch after a heal (its liveness is its drain: `stalled` when no row came for its
 * bound), nor has the staged loader (a load it cannot finish is given up, and said so).
 */
export const watchedClasses = <T>(classes: Readonly<Record<string, T>>): [string, T][] =>
  Object.entries(classes).filter(([name]) => isSinkClassName(name));

/** What the recovery table says, once, beside it. */
export const RECOVERY_CAPTION =
  "After every heal (each fault episode's, and the settle phase's) the sink must keep making progress until it drained what it held: once the cluster is verified healthy again it may go no longer than a bound from its spec (2 × write_timeout + retry_backoff + 5 s slack) without its partitions' progress or backlog changing; past it the heal is `stalled` (a violation) and the sink is restarted. Times run from the heal. ClickHouse's Kafka engine has no row here (its liveness is its drain after the heal), nor has the staged loader (it gives a load up, and says so).";

/** The run line's ` · fault proxy …` (nothing for an attached cluster, whose proxy is its own). */
export const faultProxyText = (faultProxy: string | null | undefined): string =>
  faultProxy === undefined || faultProxy === null
    ? ''
    : ` · fault proxy ${faultProxy === 'builtin' ? 'ours (chaos/toxiproxy)' : faultProxy === 'toxiproxy' ? 'the real Toxiproxy' : faultProxy}`;
