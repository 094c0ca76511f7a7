export { judge, unverified, type RunJudgement, type StoredRun } from './judge-run.ts';
export { judgeScenario, type ScenarioFacts, type ScenarioJudgement, type ScenarioRun } from './judge-scenario.ts';
export { declaredCoverage, type ScenarioCoverage } from './declared-coverage.ts';
export { judgedWarning, owedGuarantee, owedOnView, type TargetTable } from './owed.ts';
export { routingLayouts } from './expected-shard.ts';
export { specPeriods, type SpecPeriod } from './spec-periods.ts';
export { specTopology, type SpecTopology } from './spec-topology.ts';
