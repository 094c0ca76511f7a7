import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../errors.ts';
import { classifyClickHouseCode, classifyInsertError, clickHouseCodeOf } from './error-classification.ts';

const serverError = (code: number, type: string) =>
  new ClickHouseError({ message: `${type} happened`, code: String(code), type });
const nodeError = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifyInsertError', () => {
  it.each([
    [210, 'NETWORK_ERROR'],
    [209, 'SOCKET_TIMEOUT'],
    [159, 'TIMEOUT_EXCEEDED'],
    [279, 'ALL_CONNECTION_TRIES_FAILED'],
    [102, 'UNEXPECTED_PACKET_FROM_SERVER'],
    [95, 'CANNOT_READ_FROM_SOCKET'],
  ])('ClickHouse %i %s (network, protocol, timeout) is transient', (code, type) =>
    expect(classifyInsertError(serverError(code, type))).toBe('transient'),
  );

  // The seed: server errors that cannot be proven transient are bounded, whatever they say.
  it.each([
    [999, 'KEEPER_EXCEPTION'],
    [242, 'TABLE_IS_READ_ONLY'],
    [225, 'NO_ZOOKEEPER'],
    [319, 'UNKNOWN_STATUS_OF_INSERT'],
    [252, 'TOO_MANY_PARTS'],
    [241, 'MEMORY_LIMIT_EXCEEDED'],
    [60, 'UNKNOWN_TABLE'],
    [53, 'TYPE_MISMATCH'],
    [469, 'VIOLATED_CONSTRAINT'],
    [497, 'ACCESS_DENIED'],
    [394, 'QUERY_WAS_CANCELLED'],
    [49, 'LOGICAL_ERROR'],
  ])('ClickHouse %i %s is unclassified', (code, type) =>
    expect(classifyInsertError(serverError(code, type))).toBe('unclassified'),
  );

  it.each(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EAI_AGAIN'])(
    'Node %s is transient',
    (code) => {
      expect(classifyInsertError(nodeError(code))).toBe('transient');
    },
  );

  it('treats the client timeout, abort and socket hang-up as transient', () => {
    expect(classifyInsertError(new Error('Timeout error.'))).toBe('transient');
    expect(classifyInsertError(new Error('The user aborted a request.'))).toBe('transient');
    expect(classifyInsertError(nodeError('ECONNRESET', 'socket hang up'))).toBe('transient');
    expect(classifyInsertError(new Error('socket hang up'))).toBe('transient');
    expect(classifyInsertError(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe('transient');
  });

  it('treats TLS verification failures as permanent', () => {
    expect(classifyInsertError(nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toBe('permanent');
  });

  it('reads Code: N from a message when there is no ClickHouseError', () => {
    expect(
      classifyInsertError(new Error('Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)')),
    ).toBe('unclassified');
    expect(
      classifyInsertError('Code: 209. DB::Exception: Timeout exceeded while reading from socket. (SOCKET_TIMEOUT)'),
    ).toBe('transient');
  });

  it('follows the cause chain', () => {
    expect(classifyInsertError(new Error('insert failed', { cause: nodeError('EPIPE') }))).toBe('transient');
    expect(
      classifyInsertError(
        new SinkError('SINK_X', 'wrapped', { cause: new SinkError('SINK_VALUE_INVALID', 'too long') }),
      ),
    ).toBe('permanent');
  });

  it('classifies the sink’s own validation errors as permanent', () => {
    expect(classifyInsertError(new SinkError('SINK_SCHEMA_INVALID', 'bad'))).toBe('permanent');
    expect(classifyInsertError(new SinkError('SINK_VALUE_INVALID', 'too long'))).toBe('permanent');
  });

  it('leaves anything else unclassified', () => {
    expect(classifyInsertError(new Error('Unexpected token < in JSON'))).toBe('unclassified');
    expect(classifyInsertError(undefined)).toBe('unclassified');
    expect(classifyInsertError(nodeError('EACCES'))).toBe('unclassified');
  });
});

describe('server codes', () => {
  it('classify by number, never as permanent', () => {
    expect(classifyClickHouseCode(209)).toBe('transient');
    expect(classifyClickHouseCode(999)).toBe('unclassified');
    expect(classifyClickHouseCode(60)).toBe('unclassified');
    expect(classifyClickHouseCode(1)).toBe('unclassified');
  });

  it('read the code from a ClickHouseError or a message', () => {
    expect(clickHouseCodeOf(serverError(60, 'UNKNOWN_TABLE'))).toBe(60);
    expect(clickHouseCodeOf(new Error('Code: 252. DB::Exception: Too many parts'))).toBe(252);
    expect(clickHouseCodeOf(nodeError('ECONNRESET'))).toBeUndefined();
  });
});
