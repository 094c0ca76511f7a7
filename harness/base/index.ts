export { withTimeout } from './deadline.ts';
export { describeError, HarnessError, isHarnessError } from './errors.ts';
export { componentLogger, fileLogger } from './log.ts';
export { PROJECT_ROOT } from './project-root.ts';
export { newRunId, pairSeed, type RunId, runIdOf, type Seed, seedOf } from './run-identity.ts';
export { storedSinkClass } from './stored-sink-class.ts';
