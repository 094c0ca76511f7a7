export { ENGINE_RUN_FILE, recheckEngineRun } from './engine-record.ts';
export { ENGINE_BROKERS, ENGINE_SCENARIOS, type EngineScenario } from './engine-scenarios.ts';
export { type EngineScenarioOptions, runEngineScenario } from './engine-scenario.ts';
