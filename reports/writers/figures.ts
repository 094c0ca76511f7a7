import type { ServerDedupRuns, UnknownOutcomes } from '../run-result.ts';

/** `landed/absent`, with the unresolved ones named when there are any. */
export const unknownSplit = (unknown: UnknownOutcomes) => `${unknown.landed}/${unknown.absent}${unknown.unresolved > 0 ? ` (+${unknown.unresolved} unresolved)` : ''}`;

/** Classes without a token: how many runs had the server's block dedup off, and what it would have hidden. */
export const dedupStatement = (dedup: ServerDedupRuns | null) =>
  dedup === null ? 'token (window kept)' : `off in ${dedup.offRuns}/${dedup.offRuns + dedup.onRuns} runs; ${dedup.acceptedTwice} accepted twice`;

