import type { AttemptRecord } from '../../properties/checkers/observations.ts';
import type { FaultEffect, FaultType, FaultWindow } from './fault.ts';

export interface WindowWithEffect extends FaultWindow {
  readonly effect: FaultEffect;
}

/**
 * Which faults demonstrably fired: a fault that was applied but touched nothing does not count,
 * so a scenario whose faults never met traffic ends inconclusive instead of passing.
 * `endpointOf` maps a proxy name to the `host:port` the sink connected to.
 */
export function faultsFired(
  windows: readonly WindowWithEffect[],
  attempts: readonly AttemptRecord[],
  endpointOf: (proxy: string) => string | undefined,
): Map<FaultType, number> {
  const fired = new Map<FaultType, number>();
  for (const window of windows) {
    if (firedOnce(window, attempts, endpointOf)) fired.set(window.type, (fired.get(window.type) ?? 0) + 1);
  }
  return fired;
}

function firedOnce(window: WindowWithEffect, attempts: readonly AttemptRecord[], endpointOf: (proxy: string) => string | undefined): boolean {
  if (window.effect === 'verified') return window.verified === true;
  const endpoints = new Set(window.targets.map(endpointOf).filter((endpoint): endpoint is string => endpoint !== undefined));
  const until = window.healedAt ?? Number.POSITIVE_INFINITY;
  const inside = attempts.filter((a) => endpoints.has(a.endpoint) && a.startedAt < until && a.endedAt > window.appliedAt);
  switch (window.effect) {
    case 'traffic':
      return inside.length > 0;
    case 'error':
      return inside.some((a) => a.outcome !== 'ok');
    case 'slow':
      return inside.some((a) => a.endedAt - a.startedAt >= (window.slowerThanMs ?? 0));
  }
}
