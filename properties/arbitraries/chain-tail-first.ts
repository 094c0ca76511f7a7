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

/** How many of the head's shrinks that make a case cheaper are tried before the tail's. */
const CHEAPER_HEADS_FIRST = 2;
/** How far into the head's shrinks those are looked for (a record's first fields come first). */
const CHEAPER_HEADS_SCAN = 16;

export interface TailFirstOptions<Head, Tail> {
  /**
   * What a case costs to run, never below 0 (a run that sends each message as its own INSERT: its messages).
   * While the tail is as drawn, up to `CHEAPER_HEADS_FIRST` of the head's shrinks whose case
   * costs less, the cheapest first, are tried before the tail's: the tail they draw is the one
   * drawn before (same random state), and every later step then runs the cheaper case.
   */
  readonly cost?: (head: Head, tail: Tail) => number;
}

/**
 * `head.chain(tail)` with the opposite shrink order: the dependent value (a run's schedule) is
 * shrunk before the value it was drawn from (the workload and spec). Each shrink step of a chaos
 * run is a full real run, and a shorter schedule is both the likelier cause and the cheaper case
 * to read; `chain` would spend the shrink budget re-drawing whole runs from smaller workloads
 * first. With a `cost`, cheaper heads are tried first while the tail is as drawn. Generation
 * is the same as `chain`'s: same values for the same seed.
 */
export function chainTailFirst<Head, Tail>(
  head: fc.Arbitrary<Head>,
  tail: (head: Head) => fc.Arbitrary<Tail>,
  options: TailFirstOptions<Head, Tail> = {},
): fc.Arbitrary<Tail> {
  return new TailFirstChain(head, tail, options.cost);
}

class TailFirstChain<Head, Tail> extends fc.Arbitrary<Tail> {
  constructor(
    private readonly head: fc.Arbitrary<Head>,
    private readonly tail: (head: Head) => fc.Arbitrary<Tail>,
    private readonly cost: ((head: Head, tail: Tail) => number) | undefined,
  ) {
    super();
  }

  generate(random: fc.Random, bias: number | undefined): fc.Value<Tail> {
    const head = this.head.generate(random, bias);
    // Kept from after the head (chain keeps it from before): a shrunk head then draws the tail
    // the case was drawn with, wherever the tail's arbitrary does not depend on the head's value.
    return this.drawTail(head, random, random.clone(), bias);
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
    const withTail = (shrunk: fc.Value<Head>) =>
      this.drawTail(shrunk, context.tailRandom.clone(), context.tailRandom, context.bias);
    const heads = () => this.head.shrink(context.head.value_, context.head.context);
    const cheaper = this.cheaperHeads(context.head.value_, value, heads(), withTail);
    if (cheaper.length === 0) return tails.join(heads().map(withTail));
    return fc.Stream.of(...cheaper.map(([drawn]) => drawn))
      .join(tails)
      .join(dropIndices(heads(), new Set(cheaper.map(([, index]) => index))).map(withTail));
  }

  /** The cases of the head's shrinks that cost less than the current one, cheapest first, with their place in the stream. */
  private cheaperHeads(
    head: Head,
    tail: Tail,
    heads: fc.Stream<fc.Value<Head>>,
    withTail: (shrunk: fc.Value<Head>) => fc.Value<Tail>,
  ): [fc.Value<Tail>, number][] {
    const cost = this.cost;
    if (cost === undefined) return [];
    const now = cost(head, tail);
    // Nothing costs less than nothing: no tail is drawn for a case the cost does not weigh (a batching run).
    if (now <= 0) return [];
    return [...heads.take(CHEAPER_HEADS_SCAN)]
      .map((shrunk, index): [fc.Value<Tail>, number, number] => {
        const drawn = withTail(shrunk);
        return [drawn, index, cost(shrunk.value_, drawn.value_)];
      })
      .filter(([, , each]) => each < now)
      .sort(([, a, x], [, b, y]) => x - y || a - b)
      .slice(0, CHEAPER_HEADS_FIRST)
      .map(([drawn, index]) => [drawn, index]);
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

function dropIndices<T>(stream: fc.Stream<T>, dropped: ReadonlySet<number>): fc.Stream<T> {
  let index = -1;
  return stream.filter(() => {
    index += 1;
    return !dropped.has(index);
  });
}

function isTailFirstContext<Head, Tail>(context: unknown): context is TailFirstContext<Head, Tail> {
  return typeof context === 'object' && context !== null && 'tailArbitrary' in context && 'tailRandom' in context;
}
