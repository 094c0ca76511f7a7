import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMessageId, type MessageId } from '../domain/message-id.ts';
import { BatchCutter, cutBatches, type BatchLimits } from './batch-cutter.ts';

interface TestMessage {
  readonly id: MessageId;
  readonly byteSize: number;
}

const message = (seq: number, byteSize: number): TestMessage => ({
  id: formatMessageId({ generation: 1, partition: 0, seq }),
  byteSize,
});
const sizesOf = (batches: ReturnType<typeof cutBatches<TestMessage>>) =>
  batches.map((b) => b.messages.map((m) => m.byteSize));

const arbMessages = fc
  .array(fc.nat(120), { maxLength: 200 })
  .map((sizes) => sizes.map((size, seq) => message(seq, size)));
const arbLimits: fc.Arbitrary<BatchLimits> = fc.record({
  max_rows_per_batch: fc.integer({ min: 1, max: 20 }),
  max_bytes_per_batch: fc.integer({ min: 1, max: 400 }),
});

describe('cutBatches', () => {
  it('flushes on reaching the row limit', () => {
    const batches = cutBatches(
      [1, 1, 1, 1, 1].map((size, seq) => message(seq, size)),
      { max_rows_per_batch: 2, max_bytes_per_batch: 100 },
    );
    expect(sizesOf(batches)).toEqual([[1, 1], [1, 1], [1]]);
  });

  it('flushes on reaching the byte limit exactly', () => {
    const batches = cutBatches(
      [4, 6, 3].map((size, seq) => message(seq, size)),
      { max_rows_per_batch: 100, max_bytes_per_batch: 10 },
    );
    expect(sizesOf(batches)).toEqual([[4, 6], [3]]);
  });

  it('closes the batch before a message that would exceed the byte limit', () => {
    const batches = cutBatches(
      [4, 7, 2].map((size, seq) => message(seq, size)),
      { max_rows_per_batch: 100, max_bytes_per_batch: 10 },
    );
    expect(sizesOf(batches)).toEqual([[4], [7, 2]]);
  });

  it('puts a message larger than the byte limit in a batch of its own', () => {
    const batches = cutBatches(
      [3, 25, 3].map((size, seq) => message(seq, size)),
      { max_rows_per_batch: 100, max_bytes_per_batch: 10 },
    );
    expect(sizesOf(batches)).toEqual([[3], [25], [3]]);
  });

  it('tokens each batch with its largest message id', () => {
    const messages = [message(9, 1), message(10, 1), message(2, 1)];
    expect(cutBatches(messages, { max_rows_per_batch: 3, max_bytes_per_batch: 100 })[0]?.token).toBe('1-0-10');
  });

  it('refuses a negative or fractional byte size', () => {
    const cutter = new BatchCutter<TestMessage>({ max_rows_per_batch: 2, max_bytes_per_batch: 10 });
    expect(() => cutter.add(message(1, -1))).toThrow(/byte size -1/);
    expect(() => cutter.add(message(1, 1.5))).toThrow(/byte size 1.5/);
  });

  it('partitions the input in order, within the limits, each batch as full as the rules allow', () => {
    fc.assert(
      fc.property(arbMessages, arbLimits, (messages, limits) => {
        const batches = cutBatches(messages, limits);
        expect(batches.flatMap((b) => b.messages)).toEqual(messages);
        batches.forEach((batch, i) => {
          expect(batch.messages.length).toBeGreaterThan(0);
          expect(batch.messages.length).toBeLessThanOrEqual(limits.max_rows_per_batch);
          expect(batch.byteSize).toBe(batch.messages.reduce((sum, m) => sum + m.byteSize, 0));
          if (batch.messages.length > 1) expect(batch.byteSize).toBeLessThanOrEqual(limits.max_bytes_per_batch);
          const next = batches[i + 1]?.messages[0];
          if (next) {
            // A batch closes only when full or when the next message would not fit.
            const full =
              batch.messages.length === limits.max_rows_per_batch || batch.byteSize >= limits.max_bytes_per_batch;
            expect(full || batch.byteSize + next.byteSize > limits.max_bytes_per_batch).toBe(true);
          }
        });
      }),
    );
  });

  it('reproduces the same batches on replay, however the input is fed in', () => {
    fc.assert(
      fc.property(arbMessages, arbLimits, fc.array(fc.nat(), { maxLength: 10 }), (messages, limits, cuts) => {
        const first = cutBatches(messages, limits);
        expect(cutBatches([...messages], limits)).toEqual(first);
        // Fed in arbitrary chunks to one cutter (as epochs of a replay would), without flushing in between.
        const cutter = new BatchCutter<TestMessage>(limits);
        const chunked = [];
        const bounds = [...new Set(cuts.map((c) => c % (messages.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        for (const to of [...bounds, messages.length]) {
          for (const m of messages.slice(from, to)) chunked.push(...cutter.add(m));
          from = Math.max(from, to);
        }
        const rest = cutter.flush();
        if (rest) chunked.push(rest);
        expect(chunked).toEqual(first);
      }),
    );
  });
});
