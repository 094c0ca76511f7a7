import type { InsertAttempt, InsertObserver, InsertResult } from '../api.ts';

export interface ObservedAttempt {
  readonly attempt: InsertAttempt;
  sent: boolean;
  result?: InsertResult;
}

/** An `InsertObserver` that records every attempt: what the runtime's history would hold. */
export class RecordingObserver implements InsertObserver {
  readonly attempts: ObservedAttempt[] = [];

  beforeInsert(attempt: InsertAttempt): void {
    this.attempts.push({ attempt, sent: false });
  }

  insertSent(attempt: InsertAttempt): void {
    this.find(attempt).sent = true;
  }

  afterInsert(attempt: InsertAttempt, result: InsertResult): void {
    this.find(attempt).result = result;
  }

  /** `<endpoint>#<attempt>:<outcome>` per attempt, compact for assertions. */
  summary(): string[] {
    return this.attempts.map(
      ({ attempt, result }) => `${attempt.endpoint}#${attempt.attempt}:${result?.outcome ?? 'pending'}`,
    );
  }

  clear(): void {
    this.attempts.length = 0;
  }

  private find(attempt: InsertAttempt): ObservedAttempt {
    const found = this.attempts.find((entry) => entry.attempt.queryId === attempt.queryId);
    if (!found) throw new Error(`no beforeInsert for ${attempt.queryId}`);
    return found;
  }
}
