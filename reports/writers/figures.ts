import type { Verdict } from '../../properties/base/index.ts';
import type { Tally } from '../results/index.ts';

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
