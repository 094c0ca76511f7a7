export { OWED_BY_CLASS } from './owed-by-class.ts';
export { mergeVerdicts, type Verdict } from './verdict.ts';
