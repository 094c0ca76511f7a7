import fc from 'fast-check';

/**
 * Every item exactly once, in a random order: for a space small enough to cover in full on every
 * run (no case left to chance). It shrinks by dropping items, so a failure still comes down to
 * the item (and order) that matters. Each shrink step is a real run, so it drops in halves first,
 * then quarters, down to single items (delta debugging's complements): a failure caused by one or
 * two items of many is found in a few runs instead of one run per item.
 */
class EveryOnceArbitrary<T> extends fc.Arbitrary<T[]> {
  constructor(private readonly items: readonly T[]) {
    super();
  }

  generate(mrng: fc.Random): fc.Value<T[]> {
    const order = [...this.items];
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = mrng.nextInt(0, i);
      [order[i], order[j]] = [order[j] as T, order[i] as T];
    }
    return new fc.Value(order, undefined);
  }

  canShrinkWithoutContext(value: unknown): value is T[] {
    return Array.isArray(value) && value.every((item) => this.items.includes(item as T));
  }

  shrink(value: T[]): fc.Stream<fc.Value<T[]>> {
    if (value.length <= 1) return fc.Stream.nil();
    function* fewer(): IterableIterator<fc.Value<T[]>> {
      for (let size = Math.floor(value.length / 2); size >= 1; size = size === 1 ? 0 : Math.ceil(size / 2))
        for (let start = 0; start < value.length; start += size)
          yield new fc.Value([...value.slice(0, start), ...value.slice(start + size)], undefined);
    }
    return new fc.Stream(fewer());
  }
}

export const arbEveryOnce = <T>(items: readonly T[]): fc.Arbitrary<T[]> => new EveryOnceArbitrary(items);
