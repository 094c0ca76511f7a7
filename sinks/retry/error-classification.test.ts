import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../errors.ts';
import { PERMANENT_CLICKHOUSE_CODES, TRANSIENT_CLICKHOUSE_CODES } from './clickhouse-error-codes.ts';
import { classifyClickHouseCode, classifyInsertError, clickHouseCodeOf } from './error-classification.ts';

const serverError = (code: number, type: string) => new ClickHouseError({ message: `${type} happened`, code: String(code), type });
const nodeError = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifyInsertError', () => {
  it.each([
    [999, 'KEEPER_EXCEPTION'],
    [242, 'TABLE_IS_READ_ONLY'],
    [210, 'NETWORK_ERROR'],
    [209, 'SOCKET_TIMEOUT'],
    [159, 'TIMEOUT_EXCEEDED'],
    [279, 'ALL_CONNECTION_TRIES_FAILED'],
    [102, 'UNEXPECTED_PACKET_FROM_SERVER'],
    [252, 'TOO_MANY_PARTS'],
    [225, 'NO_ZOOKEEPER'],
  ])('ClickHouse %i %s is transient', (code, type) => expect(classifyInsertError(serverError(code, type))).toBe('transient'));

  it.each([
    [60, 'UNKNOWN_TABLE'],
    [16, 'NO_SUCH_COLUMN_IN_TABLE'],
    [53, 'TYPE_MISMATCH'],
    [27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED'],
    [47, 'UNKNOWN_IDENTIFIER'],
    [62, 'SYNTAX_ERROR'],
    [43, 'ILLEGAL_TYPE_OF_ARGUMENT'],
    [164, 'READONLY'],
    [497, 'ACCESS_DENIED'],
    [516, 'AUTHENTICATION_FAILED'],
    [131, 'TOO_LARGE_STRING_SIZE'],
  ])('ClickHouse %i %s is permanent', (code, type) => expect(classifyInsertError(serverError(code, type))).toBe('permanent'));

  it.each([
    [241, 'MEMORY_LIMIT_EXCEEDED'],
    [394, 'QUERY_WAS_CANCELLED'],
    [1001, 'STD_EXCEPTION'],
    [49, 'LOGICAL_ERROR'],
  ])('ClickHouse %i %s is unclassified', (code, type) => expect(classifyInsertError(serverError(code, type))).toBe('unclassified'));

  it.each(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EAI_AGAIN'])('Node %s is transient', (code) => {
    expect(classifyInsertError(nodeError(code))).toBe('transient');
  });

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
    expect(classifyInsertError(new Error('Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)'))).toBe('permanent');
    expect(classifyInsertError('Code: 242. DB::Exception: Table is in readonly mode. (TABLE_IS_READ_ONLY)')).toBe('transient');
  });

  it('follows the cause chain', () => {
    expect(classifyInsertError(new Error('insert failed', { cause: nodeError('EPIPE') }))).toBe('transient');
    expect(classifyInsertError(new SinkError('SINK_X', 'wrapped', { cause: serverError(53, 'TYPE_MISMATCH') }))).toBe('permanent');
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

describe('the code tables', () => {
  it('do not overlap', () => {
    const overlap = Object.keys(TRANSIENT_CLICKHOUSE_CODES).filter((code) => Object.hasOwn(PERMANENT_CLICKHOUSE_CODES, code));
    expect(overlap).toEqual([]);
  });

  it('classify by number', () => {
    expect(classifyClickHouseCode(999)).toBe('transient');
    expect(classifyClickHouseCode(60)).toBe('permanent');
    expect(classifyClickHouseCode(1)).toBe('unclassified');
  });

  it('read the code from a ClickHouseError or a message', () => {
    expect(clickHouseCodeOf(serverError(60, 'UNKNOWN_TABLE'))).toBe(60);
    expect(clickHouseCodeOf(new Error('Code: 252. DB::Exception: Too many parts'))).toBe(252);
    expect(clickHouseCodeOf(nodeError('ECONNRESET'))).toBeUndefined();
  });
});
