import fc from 'fast-check';

/**
 * Every item exactly once, in a random order: for a space small enough to cover in full on every
 * run (no case left to chance). It shrinks by dropping items, so a failure still comes down to
 * the one item (and order) that matters.
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
      for (let drop = 0; drop < value.length; drop += 1)
        yield new fc.Value(
          value.filter((_, index) => index !== drop),
          undefined,
        );
    }
    return new fc.Stream(fewer());
  }
}

export const arbEveryOnce = <T>(items: readonly T[]): fc.Arbitrary<T[]> => new EveryOnceArbitrary(items);
