export type { ChaosSystem } from './chaos-system.ts';
export { describeFault, type FaultSpec, HEAL_MOMENTS, type HealMoment } from './fault-spec.ts';
export {
  type FaultCheck,
  parseScheduleFile,
  SCHEDULE_FILE,
  SCHEDULE_FILE_VERSION,
  type ScheduleFile,
} from './schedule-file.ts';
export {
  type ChainLink,
  describeStep,
  type OverlappingPair,
  runSchedule,
  runStep,
  type Schedule,
  type ScheduleStep,
  step,
  stepFaults,
} from './schedule-step.ts';
