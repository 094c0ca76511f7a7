import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { classifyInsertError } from '../retry/error-classification.ts';
import { endpointRefusal } from './endpoint-failure.ts';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
const untrusted = Object.assign(new Error('unable to verify the first certificate'), {
  code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
});
const denied = new ClickHouseError({
  message: 'Code: 497. DB::Exception: default: Not enough privileges',
  code: '497',
  type: 'ACCESS_DENIED',
});

describe('endpointRefusal', () => {
  it('names every unreachable endpoint and stays transient through its cause', () => {
    const error = endpointRefusal(
      [
        { endpoint: 's1r2:8123', shard: 's1', error: refused },
        { endpoint: 's2r1:8123', shard: 's2', error: new Error('Timeout error.') },
      ],
      'db.t',
    );
    expect(error.code).toBe('SINK_ENDPOINT_UNREACHABLE');
    expect(error.message).toContain("s1r2:8123 (shard 's1'): connect ECONNREFUSED");
    expect(error.message).toContain("s2r1:8123 (shard 's2'): Timeout error.");
    expect(classifyInsertError(error)).toBe('transient');
  });

  it('reports a refused certificate as a TLS refusal, classified permanent', () => {
    const error = endpointRefusal([{ endpoint: 'h:8443', shard: undefined, error: untrusted }], 'db.t');
    expect(error.code).toBe('SINK_TLS_REFUSED');
    expect(error.message).toContain('h:8443: unable to verify the first certificate');
    expect(classifyInsertError(error)).toBe('permanent');
  });

  it('reports answers from ClickHouse as a metadata read failure, unclassified like every server error', () => {
    const error = endpointRefusal([{ endpoint: 'h:8123', shard: undefined, error: denied }], 'db.t');
    expect(error.code).toBe('SINK_METADATA_READ_FAILED');
    expect(classifyInsertError(error)).toBe('unclassified');
  });
});
