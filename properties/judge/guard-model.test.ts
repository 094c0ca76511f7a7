import { describe, expect, it } from 'vitest';
import { GuardModel } from './guard-model.ts';

const ONE = 'sharded[a,b|] a=s1 b=s2';
const KEYED = 'sharded[a,b|key] a=s1 b=s2';
const MOVED = 'sharded[a,b|] a=s1 b=s1';

describe('GuardModel', () => {
  it('lets the first start and a drained partition through, whatever the change', () => {
    const model = new GuardModel();
    expect(model.expect(0, ONE, 3)).toEqual({ refuse: false, routingChanged: false });
    model.started(0, ONE);
    expect(model.expect(0, KEYED, 0)).toEqual({ refuse: false, routingChanged: true });
  });

  it('refuses a changed routing layout over a backlog, and a changed Keeper table with the routing kept', () => {
    const model = new GuardModel();
    model.started(1, ONE);
    expect(model.expect(1, KEYED, 2)).toEqual({ refuse: true, routingChanged: true });
    expect(model.expect(1, MOVED, 2)).toEqual({ refuse: true, routingChanged: false });
    expect(model.expect(1, ONE, 2)).toEqual({ refuse: false, routingChanged: false });
  });

  it('a refused partition keeps refusing until the spec is restored', () => {
    const model = new GuardModel();
    model.started(1, ONE);
    expect(model.expect(1, KEYED, 2).refuse).toBe(true);
    expect(model.expect(1, KEYED, 2).refuse).toBe(true);
    expect(model.expect(1, ONE, 2).refuse).toBe(false);
  });
});
