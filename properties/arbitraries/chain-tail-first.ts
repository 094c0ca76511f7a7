import fc from 'fast-check';

interface TailFirstContext<Head, Tail> {
  readonly head: fc.Value<Head>;
  readonly tailArbitrary: fc.Arbitrary<Tail>;
  readonly tailContext: unknown;
  /** The random state the tail was drawn from, to draw it again for a shrunk head. */
  readonly tailRandom: fc.Random;
  readonly bias: number | undefined;
  /** Once the tail shrank, a shrunk head would draw a fresh tail and throw that progress away. */
  readonly tailShrunk: boolean;
}

/**
 * `head.chain(tail)` with the opposite shrink order: the dependent value (a run's schedule) is
 * shrunk before the value it was drawn from (the workload and spec). Each shrink step of a chaos
 * run is a full real run, and a shorter schedule is both the likelier cause and the cheaper case
 * to read; `chain` would spend the shrink budget re-drawing whole runs from smaller workloads
 * first. Generation is the same as `chain`'s: same values for the same seed.
 */
export function chainTailFirst<Head, Tail>(
  head: fc.Arbitrary<Head>,
  tail: (head: Head) => fc.Arbitrary<Tail>,
): fc.Arbitrary<Tail> {
  return new TailFirstChain(head, tail);
}

class TailFirstChain<Head, Tail> extends fc.Arbitrary<Tail> {
  constructor(
    private readonly head: fc.Arbitrary<Head>,
    private readonly tail: (head: Head) => fc.Arbitrary<Tail>,
  ) {
    super();
  }

  generate(random: fc.Random, bias: number | undefined): fc.Value<Tail> {
    const tailRandom = random.clone();
    const head = this.head.generate(random, bias);
    return this.drawTail(head, random, tailRandom, bias);
  }

  canShrinkWithoutContext(value: unknown): value is Tail {
    void value;
    return false;
  }

  shrink(value: Tail, context: unknown): fc.Stream<fc.Value<Tail>> {
    if (!isTailFirstContext<Head, Tail>(context)) return fc.Stream.nil();
    const tails = context.tailArbitrary
      .shrink(value, context.tailContext)
      .map((shrunk) => new fc.Value(shrunk.value_, { ...context, tailContext: shrunk.context, tailShrunk: true }));
    if (context.tailShrunk) return tails;
    const heads = this.head
      .shrink(context.head.value_, context.head.context)
      .map((shrunk) => this.drawTail(shrunk, context.tailRandom.clone(), context.tailRandom, context.bias));
    return tails.join(heads);
  }

  private drawTail(
    head: fc.Value<Head>,
    random: fc.Random,
    tailRandom: fc.Random,
    bias: number | undefined,
  ): fc.Value<Tail> {
    const tailArbitrary = this.tail(head.value_);
    const drawn = tailArbitrary.generate(random, bias);
    const context: TailFirstContext<Head, Tail> = {
      head,
      tailArbitrary,
      tailContext: drawn.context,
      tailRandom,
      bias,
      tailShrunk: false,
    };
    return new fc.Value(drawn.value_, context);
  }
}

function isTailFirstContext<Head, Tail>(context: unknown): context is TailFirstContext<Head, Tail> {
  return typeof context === 'object' && context !== null && 'tailArbitrary' in context && 'tailRandom' in context;
}
