import { SinkError } from '../errors.ts';
import type { Brand } from './brand.ts';

/**
 * The totally ordered message id `<generation>-<partition>-<seq>` (e.g. `1-4-17`). The text form
 * is canonical (no leading zeros, no sign), so equal ids are equal strings; ordering is numeric
 * per component, never by string.
 */
export type MessageId = Brand<string, 'MessageId'>;

export interface MessageIdParts {
  readonly generation: number;
  readonly partition: number;
  readonly seq: number;
}

const canonicalForm = /^(0|[1-9]\d*)-(0|[1-9]\d*)-(0|[1-9]\d*)$/;

export function parseMessageId(text: string): MessageIdParts {
  const match = canonicalForm.exec(text);
  const parts = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [];
  if (!match || !parts.every(Number.isSafeInteger)) {
    throw new SinkError(
      'SINK_MESSAGE_ID_INVALID',
      `Message id '${text}' is not of the form <generation>-<partition>-<seq> with non-negative integers without leading zeros (e.g. 1-4-17)`,
    );
  }
  const [generation = 0, partition = 0, seq = 0] = parts;
  return { generation, partition, seq };
}

export function isMessageId(text: string): text is MessageId {
  const match = canonicalForm.exec(text);
  return match !== null && [match[1], match[2], match[3]].every((part) => Number.isSafeInteger(Number(part)));
}

/** Validates the text and brands it. */
export function messageId(text: string): MessageId {
  parseMessageId(text);
  return text as MessageId;
}

export function formatMessageId(parts: MessageIdParts): MessageId {
  for (const [name, value] of Object.entries(parts)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new SinkError(
        'SINK_MESSAGE_ID_INVALID',
        `Message id component ${name} = ${value} is not a non-negative safe integer`,
      );
    }
  }
  return `${parts.generation}-${parts.partition}-${parts.seq}` as MessageId;
}

/** Negative, zero or positive, comparing generation, then partition, then seq, numerically. */
export function compareMessageIds(left: MessageId, right: MessageId): number {
  const a = parseMessageId(left);
  const b = parseMessageId(right);
  return a.generation - b.generation || a.partition - b.partition || a.seq - b.seq;
}

export function maxMessageId(ids: Iterable<MessageId>): MessageId | undefined {
  let max: MessageId | undefined;
  for (const id of ids) if (max === undefined || compareMessageIds(id, max) > 0) max = id;
  return max;
}
