/** What the guard model expects of one partition at one start. */
export interface GuardExpectation {
  readonly refuse: boolean;
  /** The routing layout changed (not only a Keeper table): the refusal text is the seed's, exactly. */
  readonly routingChanged: boolean;
}

const routingPart = (key: string) => key.split(' ')[0];

/**
 * The executor's own model of the topology guard, independent of the sinks' code: a partition
 * must refuse a start when the topology key (`topology-key.ts`) differs from the one it last
 * started under while it has undelivered batches; a partition that started remembers the key.
 * A refused partition keeps the key it had, so it refuses again until the spec is restored.
 */
export class GuardModel {
  private readonly startedUnder = new Map<number, string>();

  expect(partition: number, key: string, undelivered: number): GuardExpectation {
    const before = this.startedUnder.get(partition);
    const changed = before !== undefined && before !== key;
    return { refuse: changed && undelivered > 0, routingChanged: changed && routingPart(before) !== routingPart(key) };
  }

  started(partition: number, key: string): void {
    this.startedUnder.set(partition, key);
  }
}
