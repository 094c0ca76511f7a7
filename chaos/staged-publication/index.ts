export { recheckStagedRun, STAGED_RUN_FILE } from './staged-record.ts';
export { runStagedScenario, type StagedScenarioOptions } from './staged-scenario.ts';
export { STAGED_SCENARIOS, type StagedScenario, whyNotStagedRunnable } from './staged-scenarios.ts';
