import type { ClusterDescription } from '../../harness/cluster/index.ts';
import {
  eventsOfType,
  type FaultEndEvent,
  type FaultProof,
  type FaultStartEvent,
  type FaultType,
  type Stamped,
} from '../../harness/flow/history/index.ts';
import type { AttemptRecord } from './observations.ts';
import type { UnknownResolution } from './server-log.ts';

/** A fault that was applied or armed and acted on nothing, and why. */
export interface MissedFault {
  readonly fault: FaultType;
  readonly reason: string;
}

export interface FaultEvidence {
  /** Fault type -> times it met the INSERT it was aimed at (or was witnessed on the cluster). */
  readonly fired: ReadonlyMap<FaultType, number>;
  readonly missed: readonly MissedFault[];
  /** The query ids of the attempts an aimed fault demonstrably met. */
  readonly metAttempts: ReadonlySet<string>;
}

/** What the servers' logs said of the run's INSERTs, as far as fault evidence needs it. */
export interface ServerView {
  /** Query id -> the `exception_code` its replica logged for it (0: it finished). */
  readonly exceptionCodes: ReadonlyMap<string, number>;
  /** The unknown outcomes, settled against the logs. */
  readonly unknown: UnknownResolution;
  /** Each client proxy's name -> the endpoint (`host:port`) sinks dial through it, from the cluster description. */
  readonly clientLinks: ReadonlyMap<string, string>;
  /** Query id -> the longest its replica waited on one of its Keeper requests (ms, zookeeper_log); absent in truths read before it was. */
  readonly keeperWaits?: ReadonlyMap<string, number>;
  /** The same per Keeper endpoint its replica dialled (`host:port` -> ms): which links its Keeper requests went through. */
  readonly keeperLinkWaits?: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

/** Each replica's client proxy -> the endpoint (`host:port`) sinks dial through it. */
export function clientLinksOf(description: Pick<ClusterDescription, 'shards'>): Map<string, string> {
  return new Map(
    description.shards.flatMap((shard) =>
      shard.replicas.map((replica) => [replica.proxies.client, new URL(replica.http).host] as const),
    ),
  );
}

/** Held by the fault at least this long before its heal (an unfaulted INSERT here takes 15-65 ms). */
const BLOCKED_MIN_MS = 200;
/** A toxic's least delay counts only from this long: several unfaulted INSERTs fit below it. */
const MEASURABLE_MS = 200;

/**
 * The proofs of a fault whose `fault-start` records none (a history stored before they were
 * recorded): what the checker required of each fault type then.
 */
const PROOFS_BEFORE_RECORDED: Readonly<Partial<Record<FaultType, readonly FaultProof[]>>> = {
  replica_kill: ['process-seen'],
  replica_pause: ['process-seen'],
  keeper_pause: ['process-seen'],
  keeper_kill: ['process-seen'],
  keeper_quorum_loss: ['process-seen'],
  latency: ['client-link-carried'],
  bandwidth: ['client-link-carried'],
  slicer: ['client-link-carried'],
  timeout: ['client-link-carried'],
  reset_peer: ['client-link-carried'],
  limit_data: ['client-link-carried'],
  proxy_down: ['failed-at-link'],
  too_many_parts: ['server-code'],
  not_enough_space: ['server-code'],
  table_detached: ['server-code'],
  constraint_violated: ['server-code'],
  part_writer_failpoint: ['server-code'],
};

const proofsOf = (start: FaultStartEvent): readonly FaultProof[] =>
  start.proofs ?? PROOFS_BEFORE_RECORDED[start.fault] ?? [];

/**
 * Which faults of a run demonstrably fired, from what the run stored alone: each `fault-start`
 * names the INSERT attempt it was aimed at, and that attempt must show the fault's own effect —
 * not merely an effect something else could have had:
 * - a server-error fault: the attempt failed with the plan's ClickHouse code, and its replica's
 *   query_log shows that code for it;
 * - a fault built to produce an unknown outcome (a toxic that cuts the request or the answer, a
 *   quorum fault): the attempt's outcome was unknown and resolved as the plan expected (landed /
 *   absent);
 * - bandwidth and slicer: the attempt took at least what its bytes need through the toxic, and
 *   that is long enough to tell from an unfaulted INSERT;
 * - every toxic: the faulted proxy carried the attempt, by the proxy's own byte counters;
 * - process faults: also verified by the nemesis. A fault armed on an INSERT that never came
 *   (`fault-missed`) fired nothing.
 */
export function faultEvidence(
  events: readonly Stamped[],
  attempts: readonly AttemptRecord[],
  server: ServerView,
): FaultEvidence {
  const byQuery = new Map(attempts.map((attempt) => [attempt.queryId, attempt]));
  const ends = new Map(eventsOfType(events, 'fault-end').map((end) => [end.window, end]));
  const starts = new Map(eventsOfType(events, 'fault-start').map((start) => [start.window, start]));
  const fired = new Map<FaultType, number>();
  const missed: MissedFault[] = [];
  const metAttempts = new Set<string>();
  for (const start of starts.values()) {
    const end = ends.get(start.window);
    const aimed = start.aimedAt === undefined ? undefined : byQuery.get(start.aimedAt.queryId);
    const partner = start.overlaps === undefined ? undefined : starts.get(start.overlaps);
    const reason =
      start.overlaps === undefined
        ? notFired(start, end, aimed, attempts, server)
        : overlapNotFired(start, partner, end, aimed, attempts, server);
    if (reason === undefined) {
      fired.set(start.fault, (fired.get(start.fault) ?? 0) + 1);
      if (aimed !== undefined) metAttempts.add(aimed.queryId);
    } else missed.push({ fault: start.fault, reason: `${start.description}: ${reason}` });
  }
  for (const miss of eventsOfType(events, 'fault-missed'))
    missed.push({ fault: miss.fault, reason: `${miss.description}: ${miss.reason}` });
  return { fired, missed, metAttempts };
}

function notFired(
  start: Stamped<FaultStartEvent>,
  end: Stamped<FaultEndEvent> | undefined,
  aimed: AttemptRecord | undefined,
  attempts: readonly AttemptRecord[],
  server: ServerView,
): string | undefined {
  if (end === undefined) return 'never healed (the run ended inside it)';
  if (start.effect === 'witness') return end.verified ? undefined : 'the cluster never showed its effect';
  if (aimed === undefined) return 'the INSERT it was aimed at is not in the history';
  const proofs = proofsOf(start);
  if (proofs.includes('process-seen') && end.verified !== true) return 'the process was never seen stopped';
  return (
    // The window first: a fault that never reached its window explains why its effect is missing too.
    (proofs.includes('window-hit') ? windowNotShown(start, end, aimed) : undefined) ??
    effectNotShown(start, end, aimed, server) ??
    (start.expects === undefined ? undefined : resolutionNotShown(start.expects, aimed, server)) ??
    (proofs.includes('client-link-carried')
      ? linkNotShown(start, end, aimed, attempts, server.clientLinks)
      : undefined) ??
    (proofs.includes('links-active') ? trafficNotShown(start, end, aimed, server) : undefined) ??
    (proofs.includes('keeper-wait') ? keeperWaitNotShown(start, aimed, server) : undefined)
  );
}

/**
 * A fault in force on one INSERT together with another (`overlaps`): its own rule holds on the
 * aimed attempt, or on an attempt that started after it while this fault was still in force (the
 * sink's retries and later INSERTs meet a fault that outlasts the aimed one); and what it rests on
 * is something its partner cannot show, so neither fault's evidence stands in for the other's.
 */
function overlapNotFired(
  start: Stamped<FaultStartEvent>,
  partner: Stamped<FaultStartEvent> | undefined,
  end: Stamped<FaultEndEvent> | undefined,
  aimed: AttemptRecord | undefined,
  attempts: readonly AttemptRecord[],
  server: ServerView,
): string | undefined {
  if (partner === undefined) return `its partner, window ${start.overlaps}, is not in the history`;
  const [own, theirs] = [shownBy(start), shownBy(partner)];
  if (own === theirs || GENERIC.includes(own) || GENERIC.includes(theirs))
    return `it rests on ${own} and its partner ${partner.description} on ${theirs}: either could have shown the other's`;
  const shows = (attempt: AttemptRecord | undefined) =>
    notFired(start, end, attempt, attempts, server) ??
    (own.startsWith('an unknown outcome') ? cutNotShown(attempt) : undefined);
  const onAimed = shows(aimed);
  if (onAimed === undefined || aimed === undefined || end === undefined) return onAimed;
  const healAt = end.healStartedAt ?? end.at;
  const later = attempts.filter(
    (attempt) => attempt !== aimed && attempt.startedAt > aimed.startedAt && attempt.startedAt < healAt,
  );
  return later.some((attempt) => shows(attempt) === undefined)
    ? undefined
    : `${onAimed}, nor did any of the ${later.length} later attempt(s) while it was in force show it`;
}

/**
 * A cut's unknown outcome in an overlap must be a broken connection (the attempt's error has a
 * code: ECONNRESET), not the sink's own request timeout (no code), which a partner that only
 * delays the INSERT could have caused.
 */
const cutNotShown = (attempt: AttemptRecord | undefined): string | undefined =>
  attempt === undefined || attempt.errorCode !== undefined
    ? undefined
    : `the aimed INSERT ${attempt.queryId} ended without a connection error (the sink's own timeout?), which its partner could have caused`;

/** Evidence any fault that hinders an INSERT can leave: it cannot tell two faults in force at once apart. */
const GENERIC: readonly string[] = ['an INSERT that did not end ok', 'the time an INSERT took'];

/** What a fault's evidence rests on, as a partner in force at the same time would have to show it too. */
function shownBy(start: FaultStartEvent): string {
  const proofs = proofsOf(start);
  if (proofs.includes('server-code')) return `the ClickHouse code ${start.serverCode ?? '?'}`;
  if (proofs.includes('keeper-wait')) return 'a Keeper wait in zookeeper_log';
  if (start.effect === 'witness') return 'an effect the nemesis witnessed';
  if (start.expects !== undefined)
    return `an unknown outcome that ${start.expects === 'landed' ? 'landed' : 'stayed absent'}`;
  if (start.effect === 'slow' || start.effect === 'stalled' || start.effect === 'traffic')
    return 'the time an INSERT took';
  return 'an INSERT that did not end ok';
}

/**
 * The nemesis saw the aimed INSERT itself running on its replica at each server-side window the
 * fault names, in order: a window reached by another INSERT on that replica does not count.
 */
function windowNotShown(
  start: Stamped<FaultStartEvent>,
  end: Stamped<FaultEndEvent>,
  aimed: AttemptRecord,
): string | undefined {
  const wanted = start.windows ?? [];
  if (wanted.length === 0) return 'its fault-start names no server-side window to look for';
  const seen = end.windowHit;
  if (seen === undefined) return 'its fault-end records no server-side window';
  for (const [i, window] of wanted.entries()) {
    const hit = seen.hits[i];
    if (hit?.window !== window)
      return `the window ${window} was not reached on ${seen.replica}${seen.missed === undefined ? '' : `: ${seen.missed}`}`;
    if (!hit.queryIds.includes(aimed.queryId))
      return `the window ${window} was reached on ${seen.replica} by ${hit.queryIds.join(', ') || 'no INSERT'}, not by the aimed INSERT ${aimed.queryId}`;
  }
  return undefined;
}

const took = (attempt: AttemptRecord) => attempt.endedAt - attempt.startedAt;

function effectNotShown(
  start: Stamped<FaultStartEvent>,
  end: Stamped<FaultEndEvent>,
  aimed: AttemptRecord,
  server: ServerView,
): string | undefined {
  switch (start.effect) {
    case 'error':
      if (proofsOf(start).includes('server-code')) return serverCodeNotShown(start, aimed, server);
      if (aimed.outcome === 'ok') return `the aimed INSERT ${aimed.queryId} still succeeded`;
      if (proofsOf(start).includes('failed-at-link') && isServerCode(aimed.errorCode))
        return `the aimed INSERT ${aimed.queryId} failed on the server (${aimed.errorCode}), not at its link`;
      return undefined;
    case 'slow':
    case 'stalled':
      if (start.effect === 'stalled' && aimed.outcome !== 'ok') return undefined;
      return took(aimed) >= (start.slowerThanMs ?? 0)
        ? undefined
        : `the aimed INSERT took ${Math.round(took(aimed))} ms, less than ${start.slowerThanMs} ms`;
    case 'blocked': {
      if (aimed.outcome !== 'ok') return undefined;
      const healStart = end.healStartedAt ?? end.at;
      if (healStart - aimed.startedAt < BLOCKED_MIN_MS)
        return `healed ${Math.round(healStart - aimed.startedAt)} ms after the aimed INSERT started, too soon to show it was blocked`;
      return aimed.endedAt >= healStart ? undefined : `the aimed INSERT ${aimed.queryId} succeeded before the heal`;
    }
    case 'traffic':
      return throttleNotShown(start, aimed);
  }
}

const isServerCode = (code: string | undefined) => code !== undefined && /^\d+$/.test(code);

function serverCodeNotShown(
  start: Stamped<FaultStartEvent>,
  aimed: AttemptRecord,
  server: ServerView,
): string | undefined {
  const code = start.serverCode;
  if (code === undefined) return 'its fault-start names no ClickHouse code to look for';
  if (aimed.errorCode !== code)
    return `the aimed INSERT ${aimed.queryId} ended ${aimed.outcome}${aimed.errorCode === undefined ? '' : ` with ${aimed.errorCode}`}, not with the plan's ClickHouse code ${code}`;
  const logged = server.exceptionCodes.get(aimed.queryId);
  if (logged !== Number(code))
    return `query_log shows ${logged === undefined ? 'no entry' : `exception_code ${logged}`} for the aimed INSERT ${aimed.queryId}, not ${code}`;
  return undefined;
}

function resolutionNotShown(
  expects: NonNullable<FaultStartEvent['expects']>,
  aimed: AttemptRecord,
  server: ServerView,
): string | undefined {
  if (aimed.outcome !== 'unknown') return `the aimed INSERT ${aimed.queryId} ended ${aimed.outcome}, not unknown`;
  const is = (list: readonly AttemptRecord[]) => list.some((attempt) => attempt.queryId === aimed.queryId);
  const resolved = is(server.unknown.landed) ? 'landed' : is(server.unknown.absent) ? 'absent' : 'unresolved';
  return resolved === expects
    ? undefined
    : `the aimed INSERT ${aimed.queryId}'s unknown outcome resolved ${resolved}, the plan expected ${expects}`;
}

/**
 * The least time a bandwidth or slicer toxic holds `bytes`: at `rate` KB/s (1 KB = 1000 B), or
 * one `delay` µs after every slice but the last, slices being at most `average_size` +
 * `size_variation` bytes (both the real Toxiproxy's toxics and ours).
 */
function leastDelayMs(fault: FaultType, attributes: Readonly<Record<string, number>>, bytes: number): number {
  if (fault === 'bandwidth')
    return (attributes.rate ?? 0) > 0 ? bytes / (attributes.rate ?? 1) : Number.POSITIVE_INFINITY;
  const slice = Math.max(1, (attributes.average_size ?? 0) + (attributes.size_variation ?? 0));
  return (Math.ceil(bytes / slice) - 1) * ((attributes.delay ?? 0) / 1000);
}

function throttleNotShown(start: Stamped<FaultStartEvent>, aimed: AttemptRecord): string | undefined {
  if (!aimed.sent) return `the aimed INSERT ${aimed.queryId} never sent its body`;
  if (aimed.sentBytes === undefined)
    return `the history does not say how many bytes the aimed INSERT ${aimed.queryId} sent`;
  if (start.toxic === undefined) return 'its fault-start records no toxic attributes to measure it by';
  const least = leastDelayMs(start.fault, start.toxic.attributes, aimed.sentBytes);
  if (least < MEASURABLE_MS)
    return `the aimed INSERT's ${aimed.sentBytes} B need only ${Math.round(least)} ms through it, no longer than an unfaulted INSERT may take: no evidence it acted`;
  if (took(aimed) >= least) return undefined;
  // A body that needs longer through the throttle than the sink waits for an answer ends at the
  // sink's own timeout: the whole time it lasted is the throttle's (the latency proof's standard).
  if (aimed.timedOut === true && aimed.outcome === 'unknown' && took(aimed) >= MEASURABLE_MS) return undefined;
  return `the aimed INSERT took ${Math.round(took(aimed))} ms, less than the ${Math.round(least)} ms its ${aimed.sentBytes} B need through it${aimed.timedOut === true ? '' : ', and no timeout of the sink ended it'}`;
}

/**
 * The faulted proxies carried the aimed INSERT, by their own counters: the aimed INSERT's endpoint
 * is behind one of them, and while the fault was in force they received at least what every
 * INSERT through them sent from the aimed one's start to the heal (the aimed one included) — other
 * traffic on the link cannot stand in for an INSERT that went another way.
 */
function linkNotShown(
  start: Stamped<FaultStartEvent>,
  end: Stamped<FaultEndEvent>,
  aimed: AttemptRecord,
  attempts: readonly AttemptRecord[],
  clientLinks: ReadonlyMap<string, string>,
): string | undefined {
  if (!aimed.sent || aimed.sentBytes === undefined)
    return `the history does not say what the aimed INSERT ${aimed.queryId} sent through its link`;
  const endpoints = new Set(start.targets.flatMap((proxy) => clientLinks.get(proxy) ?? []));
  if (!endpoints.has(aimed.endpoint))
    return `the aimed INSERT ${aimed.queryId} went to ${aimed.endpoint}, which is not behind ${start.targets.join('+')}`;
  const [before, after] = [start.links, end.links];
  if (before === undefined || after === undefined) return 'no byte counters of its proxies were recorded';
  const unavailable = before.unavailable ?? after.unavailable;
  if (unavailable !== undefined) return `its proxies' byte counters could not be read: ${unavailable}`;
  const uncounted = start.targets.filter((proxy) => after.received[proxy] === undefined);
  if (uncounted.length > 0)
    return `the fault proxy reported no byte counter for ${uncounted.join(', ')} (a Toxiproxy without -proxy-metrics?)`;
  const carried = start.targets.reduce(
    (total, proxy) => total + (after.received[proxy] ?? 0) - (before.received[proxy] ?? 0),
    0,
  );
  const healAt = end.healStartedAt ?? end.at;
  const through = attempts.filter(
    (attempt) =>
      attempt === aimed ||
      (endpoints.has(attempt.endpoint) && attempt.startedAt >= aimed.startedAt && attempt.endedAt <= healAt),
  );
  const owed = through.reduce((total, attempt) => total + (attempt.sent ? (attempt.sentBytes ?? 0) : 0), 0);
  if (carried >= owed) return undefined;
  const others = through.length - 1;
  return `${start.targets.join('+')} received ${carried} B while it was in force, less than the ${owed} B the aimed INSERT ${aimed.queryId}${others > 0 ? ` and ${others} other INSERT(s) through it` : ''} sent: it did not carry that INSERT`;
}

/**
 * The server recorded the aimed INSERT itself waiting on Keeper at least the latency less its
 * jitter: the INSERT's own Keeper requests met the fault, which neither the replica's other Keeper
 * traffic nor an INSERT slow for another reason (a disk, a busy host) can show. Where the history
 * says where the faulted proxies listen, the wait must be on a request that went through one of
 * them (zookeeper_log names the endpoint each request was sent to).
 */
function keeperWaitNotShown(
  start: Stamped<FaultStartEvent>,
  aimed: AttemptRecord,
  server: ServerView,
): string | undefined {
  const least = start.slowerThanMs ?? 0;
  const through = waitsThroughTargets(start, aimed, server);
  if (through !== undefined) {
    const waited = Math.max(0, ...through.map(([, ms]) => ms));
    if (through.length === 0)
      return `zookeeper_log records none of the aimed INSERT ${aimed.queryId}'s Keeper requests through ${start.targets.join('+')}`;
    return waited >= least
      ? undefined
      : `the aimed INSERT ${aimed.queryId} waited ${Math.round(waited)} ms on Keeper through ${start.targets.join('+')}, less than the ${least} ms the latency adds`;
  }
  const waited = server.keeperWaits?.get(aimed.queryId);
  if (waited === undefined) return `zookeeper_log records no Keeper wait for the aimed INSERT ${aimed.queryId}`;
  return waited >= least
    ? undefined
    : `the aimed INSERT ${aimed.queryId} waited ${Math.round(waited)} ms on Keeper, less than the ${least} ms the latency adds`;
}

/**
 * The faulted proxies carried traffic while the fault was in force: by their own counters, or —
 * where a counter counts a connection only once it ends (the real Toxiproxy: a Keeper session
 * outlives the fault) — by the server's log of the aimed INSERT's own Keeper requests sent through
 * one of them while it was in force.
 */
function trafficNotShown(
  start: Stamped<FaultStartEvent>,
  end: Stamped<FaultEndEvent>,
  aimed: AttemptRecord,
  server: ServerView,
): string | undefined {
  const through = waitsThroughTargets(start, aimed, server);
  if (through !== undefined && through.length > 0) return undefined;
  const [before, after] = [start.links, end.links];
  if (before === undefined || after === undefined) return 'no byte counters of its proxies were recorded';
  const unavailable = before.unavailable ?? after.unavailable;
  if (unavailable !== undefined) return `its proxies' byte counters could not be read: ${unavailable}`;
  const carried = start.targets.reduce(
    (total, proxy) => total + (after.received[proxy] ?? 0) - (before.received[proxy] ?? 0),
    0,
  );
  return carried > 0
    ? undefined
    : `${start.targets.join('+')} carried nothing while it was in force${through === undefined ? '' : ', by its counters and by zookeeper_log'}`;
}

/**
 * The aimed INSERT's Keeper waits on the endpoints the fault's proxies listen on, as `[endpoint,
 * ms]`; undefined when the history cannot say (no listen addresses recorded, no zookeeper_log).
 * A proxy listening on every address is matched by its port.
 */
function waitsThroughTargets(
  start: FaultStartEvent,
  aimed: AttemptRecord,
  server: ServerView,
): (readonly [string, number])[] | undefined {
  const listens = start.targets.flatMap((proxy) => start.links?.listens?.[proxy] ?? []);
  const waits = server.keeperLinkWaits?.get(aimed.queryId);
  if (listens.length === 0 || waits === undefined) return undefined;
  const matches = (endpoint: string) =>
    listens.some((listen) => {
      const { host, port } = splitEndpoint(listen);
      const other = splitEndpoint(endpoint);
      return port === other.port && (WILDCARD_HOSTS.has(host) || host === other.host);
    });
  return Object.entries(waits).filter(([endpoint]) => matches(endpoint));
}

const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['', '0.0.0.0', '::']);

function splitEndpoint(endpoint: string): { host: string; port: string } {
  const colon = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: endpoint.slice(colon + 1) };
}
