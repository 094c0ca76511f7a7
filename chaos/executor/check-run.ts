import type { StartedCluster } from '../../harness/cluster/started-cluster.ts';
import { eventsOfType, type History } from '../../harness/flow/history/history-reader.ts';
import type { SourceConfig } from '../../harness/flow/source/source-config.ts';
import type { GroundTruth } from '../../harness/oracle/ground-truth.ts';
import { checkScenario, type ScenarioCheck } from '../../properties/checkers/check-scenario.ts';
import type { Coverage, Evidence } from '../../properties/checkers/coverage-checker.ts';
import { factsFromHistory } from '../../properties/checkers/from-history.ts';
import type { ExpectedRefusal, Observations } from '../../properties/checkers/observations.ts';
import { CrashSink, FaultEpisode, type ChaosCommand } from '../../properties/model/commands.ts';
import type { SinkClassName } from '../../sinks/domain/sink-class-name.ts';
import type { DeliveryGuarantee } from '../../sinks/sink-classes.ts';
import { faultsFired } from '../nemeses/fired.ts';
import type { ScenarioDefinition } from '../scenarios/scenario.ts';
import { expectedShardOf } from './expected-shard.ts';
import type { PipelineSystem } from './pipeline-system.ts';

export const ROUTING_REFUSAL_PREFIX = 'Refusing to start the ClickHouse sink: the shard topology changed while';
const REFUSAL_PREFIX = 'Refusing to start the ClickHouse sink: ';

export interface RunCheck extends ScenarioCheck {
  readonly coverage: Coverage;
  readonly evidence: Evidence;
  readonly inserts: { readonly ok: number; readonly failed: number; readonly unknown: number };
}

interface CheckInput {
  readonly cluster: StartedCluster;
  readonly scenario: ScenarioDefinition;
  readonly sinkClass: SinkClassName;
  readonly guarantee: DeliveryGuarantee;
  readonly source: SourceConfig;
  readonly history: History;
  readonly truth: GroundTruth;
  readonly system: PipelineSystem;
  readonly commands: readonly ChaosCommand[];
}

/** The declared coverage of a run: the scenario's events plus every fault and crash point its schedule holds. */
export function declaredCoverage(scenario: ScenarioDefinition, sinkClass: SinkClassName, commands: readonly ChaosCommand[]): Coverage {
  const faults = [...new Set(commands.filter((c): c is FaultEpisode => c instanceof FaultEpisode).map((c) => c.fault.type))];
  const crashPoints = [...new Set(commands.filter((c): c is CrashSink => c instanceof CrashSink).map((c) => c.point))];
  return { ...scenario.coverage(sinkClass), faults, crashPoints };
}

/**
 * The refusals the executor's model of the guard expects, with the details the message must
 * carry: the persisted routing fingerprint (from the partition's last start) and the oldest
 * undelivered batch bound (from the store snapshot of the refusing start).
 */
function expectedRefusals(input: CheckInput): ExpectedRefusal[] {
  const events = input.history.events;
  const started = eventsOfType(events, 'partition-started');
  const snapshots = eventsOfType(events, 'state-snapshot');
  return input.system.expectations
    .filter((expectation) => expectation.refuse)
    .map((expectation) => {
      const details: string[] = [];
      const previous = started.filter((event) => event.partition === expectation.partition && event.at < expectation.from).pop();
      if (expectation.routingChanged && previous?.fingerprints) details.push(`    persisted_topology_fingerprint = ${previous.fingerprints.routing}`);
      const snapshot = snapshots.find((event) => event.partition === expectation.partition && event.at >= expectation.from && event.at <= expectation.until);
      const oldest = snapshot?.undelivered[0]?.token;
      if (oldest !== undefined) details.push(`    oldest_undelivered_batch_bound = ${oldest}`);
      const messagePrefix = expectation.routingChanged ? `${ROUTING_REFUSAL_PREFIX} ${snapshot?.undelivered.length ?? expectation.undelivered} batch(es) are still undelivered` : REFUSAL_PREFIX;
      return { partition: expectation.partition, messagePrefix, details, from: expectation.from, until: expectation.until };
    });
}

export function checkRun(input: CheckInput): RunCheck {
  const facts = factsFromHistory(input.history.events, input.guarantee, input.source.generation);
  const description = input.cluster.description;
  const endpoints = new Map(description.shards.flatMap((shard) => shard.replicas.map((replica) => [replica.proxies.client, new URL(replica.http).host] as const)));
  const observations: Observations = {
    guarantee: input.guarantee,
    attempts: facts.attempts,
    acknowledged: facts.acknowledged,
    produced: facts.produced,
    replicas: input.truth.replicas,
    viaDistributed: input.truth.viaDistributed,
    expectedShard: expectedShardOf(description, input.source, input.system.specs, facts.attempts),
    refusals: facts.refusals,
    expectedRefusals: expectedRefusals(input),
  };
  const evidence: Evidence = {
    faultsFired: faultsFired(input.system.windows, facts.attempts, (proxy) => endpoints.get(proxy)),
    unknownOutcomes: facts.unknownOutcomes,
    replays: facts.replays,
    dedupHits: input.truth.dedupHits,
    refusals: facts.refusals.length,
    crashes: facts.crashes,
    reconfiguredInFlight: facts.reconfiguredInFlight,
    queueDrops: facts.queueDrops,
  };
  const coverage = declaredCoverage(input.scenario, input.sinkClass, input.commands);
  const check = checkScenario(observations, coverage, evidence);
  const count = (outcome: string) => facts.attempts.filter((attempt) => attempt.outcome === outcome).length;
  return { ...check, coverage, evidence, inserts: { ok: count('ok'), failed: count('failed'), unknown: count('unknown') } };
}
