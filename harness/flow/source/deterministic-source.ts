import { formatMessageId, type Row, type RowValue, type SinkMessage } from '../../../sinks/index.ts';
import { HarnessError } from '../../base/index.ts';
import { hashText, mix32 } from './mix.ts';
import type { SourceColumn, SourceConfig } from './source-config.ts';
import { typedColumnNamed } from './typed-columns.ts';

/**
 * Mostly ASCII, with what real text carries and hand-written encoders get wrong: two-, three- and
 * four-byte UTF-8 characters (the last a UTF-16 surrogate pair), tab, newline, quote, backslash.
 */
const ALPHABET: readonly string[] = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  'é',
  'ж',
  '€',
  '𝄞',
  '\t',
  '\n',
  '"',
  '\\',
];
const PAYLOAD_SALT = hashText('payload-size');

/** JSON has no bigint: a message's size counts it as its digits. */
const bigintAsText = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * One partition's input stream: an endless, replayable sequence of messages. Message `seq` is a
 * pure function of (seed, partition, seq), so `read(fromSeq, count)` returns the same messages
 * for the same config whenever, wherever and in whatever order it is called — a restarted
 * worker re-reads exactly what the crashed one read.
 */
export class DeterministicSource {
  constructor(
    readonly config: SourceConfig,
    readonly partition: number,
  ) {
    if (!Number.isSafeInteger(partition) || partition < 0 || partition >= config.partitions) {
      throw new HarnessError(
        'FLOW_SOURCE_INVALID',
        `Partition ${partition} does not exist: the source has partitions 0..${config.partitions - 1}`,
      );
    }
  }

  read(fromSeq: number, count: number): SinkMessage[] {
    if (!Number.isSafeInteger(fromSeq) || fromSeq < 0 || !Number.isSafeInteger(count) || count < 0) {
      throw new HarnessError('FLOW_SOURCE_INVALID', `read(${fromSeq}, ${count}) needs non-negative integers`);
    }
    return Array.from({ length: count }, (_, i) => this.message(fromSeq + i));
  }

  message(seq: number): SinkMessage {
    const id = formatMessageId({ generation: this.config.generation, partition: this.partition, seq });
    const row: Record<string, RowValue> = {};
    for (const column of this.config.columns) row[column.name] = this.value(column, seq, id);
    return { id, row: row as Row, byteSize: Buffer.byteLength(JSON.stringify(row, bigintAsText)) };
  }

  private value(column: SourceColumn, seq: number, id: string): RowValue {
    switch (column.role) {
      case 'message-id':
        return id;
      case 'generation':
        return this.config.generation;
      case 'partition':
        return this.partition;
      case 'seq':
        return seq;
      case 'key':
        return `k${this.draw(seq, hashText(column.name)) % this.config.keySpace}`;
      case 'payload':
        return this.payload(seq, hashText(column.name));
      case 'typed': {
        const salt = hashText(column.name);
        return typedColumnNamed(column.name).value((i) => this.draw(seq, salt, i));
      }
    }
  }

  /** Exactly `size` UTF-8 bytes: a character that would overflow it gives way to an ASCII one. */
  private payload(seq: number, salt: number): string {
    const { min, max } = this.config.payloadBytes;
    const size = min + (this.draw(seq, PAYLOAD_SALT ^ salt) % (max - min + 1));
    let text = '';
    let bytes = 0;
    for (let i = 0; bytes < size; i += 1) {
      let word = this.draw(seq, salt, i);
      for (let j = 0; j < 4 && bytes < size; j += 1) {
        const drawn = ALPHABET[word % ALPHABET.length] ?? 'x';
        const next = bytes + Buffer.byteLength(drawn) <= size ? drawn : 'x';
        text += next;
        bytes += Buffer.byteLength(next);
        word = Math.floor(word / ALPHABET.length);
      }
    }
    return text;
  }

  private draw(seq: number, ...salt: number[]): number {
    return mix32(this.config.seed, this.partition, seq, ...salt);
  }
}
