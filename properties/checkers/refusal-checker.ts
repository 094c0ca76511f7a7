import { anomaly, resultOf, type CheckResult } from './check-result.ts';
import type { Observations } from './observations.ts';

/**
 * Topology guard: every expected refusal happened with the exact text (first line and the
 * fingerprint/bound lines), and the refusing partition inserted nothing while it refused. A
 * refusal nobody expected is an anomaly too (the guard must not block a drained partition).
 */
export function refusalChecker(observations: Observations): CheckResult {
  const missing: string[] = [];
  const wrongText: string[] = [];
  const insertedWhileRefusing: string[] = [];
  const matched = new Set<number>();
  for (const expected of observations.expectedRefusals) {
    const index = observations.refusals.findIndex(
      (refusal, i) =>
        !matched.has(i) &&
        refusal.partition === expected.partition &&
        refusal.at >= expected.from &&
        refusal.at <= expected.until,
    );
    const refusal = observations.refusals[index];
    if (refusal === undefined) {
      missing.push(`partition ${expected.partition}`);
      continue;
    }
    matched.add(index);
    const [firstLine = '', ...rest] = refusal.message.split('\n');
    if (!firstLine.startsWith(expected.messagePrefix) || !expected.details.every((line) => rest.includes(line))) {
      wrongText.push(`partition ${expected.partition}: ${firstLine.slice(0, 80)}`);
    }
    for (const attempt of observations.attempts) {
      if (
        attempt.partition === expected.partition &&
        attempt.startedAt >= expected.from &&
        attempt.startedAt <= expected.until
      ) {
        insertedWhileRefusing.push(attempt.queryId);
      }
    }
  }
  const unexpected = observations.refusals
    .filter((_, index) => !matched.has(index))
    .map((refusal) => `partition ${refusal.partition}`);
  return resultOf('topology-guard', [
    anomaly('refusal-missing', missing),
    anomaly('refusal-text', wrongText),
    anomaly('inserted-while-refusing', insertedWhileRefusing),
    anomaly('refusal-unexpected', unexpected),
  ]);
}
