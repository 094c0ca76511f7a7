import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMessageId } from '../../../sinks/index.ts';
import { DeterministicSource } from './deterministic-source.ts';
import { columnsDdl, sourceConfig, streamSchema } from './source-config.ts';

describe('DeterministicSource', () => {
  const config = sourceConfig({ seed: 42, partitions: 3, keySpace: 4, payloadBytes: { min: 5, max: 40 } });

  it('yields ids <generation>-<partition>-<seq> and rows with every configured column', () => {
    const [first] = new DeterministicSource(config, 2).read(17, 1);
    expect(first?.id).toBe('1-2-17');
    expect(first?.row).toMatchObject({ id: '1-2-17', partition: 2, seq: 17, key: expect.stringMatching(/^k[0-3]$/) });
    expect(first?.byteSize).toBe(Buffer.byteLength(JSON.stringify(first?.row)));
  });

  it('is replayable: any window of the stream reads the same from a fresh source (seed 42)', () => {
    fc.assert(
      fc.property(fc.nat(2), fc.nat(500), fc.nat(30), fc.nat(30), (partition, from, count, offset) => {
        const whole = new DeterministicSource(config, partition).read(from, count + offset);
        const window = new DeterministicSource(sourceConfig({ ...config }), partition).read(from + offset, count);
        expect(window).toEqual(whole.slice(offset));
      }),
      { seed: 42 },
    );
  });

  it('keeps payload sizes in UTF-8 bytes within bounds and keys within the key space', () => {
    const messages = new DeterministicSource(config, 0).read(0, 300);
    const payloads = messages.map((message) => Buffer.byteLength(String(message.row.payload)));
    expect(Math.min(...payloads)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...payloads)).toBeLessThanOrEqual(40);
    expect(new Set(messages.map((message) => message.row.key))).toEqual(new Set(['k0', 'k1', 'k2', 'k3']));
    expect(messages.map((message) => parseMessageId(message.id).seq)).toEqual(messages.map((_, i) => i));
  });

  it('writes multi-byte characters and the characters text formats escape into most payloads', () => {
    const payloads = new DeterministicSource(config, 0).read(0, 300).map((message) => String(message.row.payload));
    const multiByte = payloads.filter((payload) => Buffer.byteLength(payload) > payload.length);
    expect(multiByte.length).toBeGreaterThan(payloads.length / 2);
    expect(payloads.some((payload) => payload.includes('𝄞'))).toBe(true);
    expect(payloads.some((payload) => /[\t\n"\\]/.test(payload))).toBe(true);
  });

  it('differs between seeds and between partitions', () => {
    const payloadOf = (seed: number, partition: number) =>
      new DeterministicSource(sourceConfig({ ...config, seed }), partition).read(0, 5).map((m) => m.row.payload);
    expect(payloadOf(42, 0)).not.toEqual(payloadOf(43, 0));
    expect(payloadOf(42, 0)).not.toEqual(payloadOf(42, 1));
  });

  it('derives DDL and the stream schema from the same columns', () => {
    expect(columnsDdl(config)).toBe('id String, partition UInt32, seq UInt64, key String, payload String');
    expect(streamSchema(config).map((column) => column.type)).toEqual([
      'string',
      'uint32',
      'uint64',
      'string',
      'string',
    ]);
  });

  it('refuses impossible configs and partitions', () => {
    expect(() => sourceConfig({ seed: 1, partitions: 0 })).toThrow(
      expect.objectContaining({ code: 'FLOW_SOURCE_INVALID' }),
    );
    expect(() => sourceConfig({ seed: 1, columns: [{ name: 'k', role: 'key' }] })).toThrow(/message-id column/);
    expect(() => new DeterministicSource(config, 3)).toThrow(/partitions 0\.\.2/);
  });
});
