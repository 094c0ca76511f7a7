import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../properties/checkers/observations.ts';
import { faultsFired, type WindowWithEffect } from './fired.ts';

const attempt = (over: Partial<AttemptRecord>): AttemptRecord => ({
  partition: 0,
  batch: 1,
  shard: 's1',
  endpoint: '127.0.0.1:2000',
  queryId: 'q',
  messageIds: ['1-0-0'],
  outcome: 'ok',
  startedAt: 100,
  endedAt: 110,
  ...over,
});
const endpointOf = (proxy: string) => (proxy === 's1r1_client' ? '127.0.0.1:2000' : undefined);
const window = (over: Partial<WindowWithEffect>): WindowWithEffect => ({
  type: 'reset_peer',
  description: 'reset_peer(s1r1_client, 0ms)',
  targets: ['s1r1_client'],
  appliedAt: 50,
  healedAt: 200,
  effect: 'error',
  ...over,
});

describe('faultsFired', () => {
  it('counts an error fault only when an insert through its proxy failed inside the window', () => {
    expect(faultsFired([window({})], [attempt({ outcome: 'unknown' })], endpointOf).get('reset_peer')).toBe(1);
    expect(faultsFired([window({})], [attempt({ outcome: 'ok' })], endpointOf).size).toBe(0);
    expect(faultsFired([window({})], [attempt({ outcome: 'failed', startedAt: 300, endedAt: 310 })], endpointOf).size).toBe(0);
    expect(faultsFired([window({})], [attempt({ outcome: 'failed', endpoint: '127.0.0.1:9999' })], endpointOf).size).toBe(0);
  });

  it('counts latency only when an insert took at least the added latency', () => {
    const slow = window({ type: 'latency', effect: 'slow', slowerThanMs: 50 });
    expect(faultsFired([slow], [attempt({ startedAt: 100, endedAt: 140 })], endpointOf).size).toBe(0);
    expect(faultsFired([slow], [attempt({ startedAt: 100, endedAt: 160 })], endpointOf).get('latency')).toBe(1);
  });

  it('counts traffic faults when an insert passed through, and verified faults only when verified', () => {
    expect(faultsFired([window({ type: 'slicer', effect: 'traffic' })], [attempt({})], endpointOf).get('slicer')).toBe(1);
    expect(faultsFired([window({ type: 'keeper_pause', effect: 'verified' })], [], endpointOf).size).toBe(0);
    expect(faultsFired([window({ type: 'keeper_pause', effect: 'verified', verified: true })], [], endpointOf).get('keeper_pause')).toBe(1);
  });
});
