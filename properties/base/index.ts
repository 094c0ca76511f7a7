export { OWED_BY_CLASS } from './owed-by-class.ts';
export { mergeVerdicts, type Verdict } from './verdict.ts';
export {
  type EngineClassName,
  isJudgedClassName,
  JUDGED_CLASS_NAMES,
  type JudgedClassName,
  KAFKA_ENGINE_CLASS,
  STAGED_LOADER_CLASS,
  type StagedLoaderClassName,
  classGuarantee,
  classPath,
  type OwedGuarantee,
} from './judged-class.ts';
