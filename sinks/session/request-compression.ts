import zlib from 'node:zlib';
import type { ClickHouseClientConfigOptions } from '@clickhouse/client';
import type { Codec } from '../spec/sink-spec.ts';

type Compression = NonNullable<ClickHouseClientConfigOptions['compression']>;

/**
 * `codec` names the native protocol's block compression; over HTTP it maps onto the request body
 * encoding (insert responses are empty, so responses are never compressed):
 * - `none`: no compression;
 * - `lz4` (the default): no compression either. lz4 exists to save bandwidth for almost no CPU;
 *   Node has no lz4, and the codecs it has cost far more CPU than the bytes they save on the
 *   links a sink normally uses, which would also skew the throughput chaos runs measure;
 * - `zstd`: the caller asked to trade CPU for bandwidth: zstd where Node has it (22.15+),
 *   otherwise gzip, the codec ClickHouse and every Node decode.
 */
export function requestCompressionFor(
  codec: Codec,
  zstdAvailable = typeof (zlib as { createZstdCompress?: unknown }).createZstdCompress === 'function',
): Compression {
  if (codec !== 'zstd') return { request: false, response: false };
  return { request: { codec: zstdAvailable ? 'zstd' : 'gzip' }, response: false };
}
