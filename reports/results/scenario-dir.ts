import { HarnessError } from '../../harness/base/index.ts';
import { isJudgedClassName, type JudgedClassName } from '../../properties/base/index.ts';

const SEPARATOR = '__';

/** The directory of one class x scenario in a run's report directory, `<class>__<scenario>`. */
export const scenarioDirName = (sinkClass: JudgedClassName, scenario: string): string =>
  `${sinkClass}${SEPARATOR}${scenario}`;

export const isScenarioDirName = (name: string): boolean => name.includes(SEPARATOR);

/** The class and scenario a directory name holds; a class that is none of ours is refused, naming the directory. */
export function parseScenarioDirName(name: string): { readonly sinkClass: JudgedClassName; readonly scenario: string } {
  const [sinkClass = '', scenario = ''] = name.split(SEPARATOR);
  if (!isJudgedClassName(sinkClass))
    throw new HarnessError(
      'STORED_SINK_CLASS_INVALID',
      `Scenario directory '${name}' names the class ${JSON.stringify(sinkClass)}, not one this harness judges; the file was written by another version of the harness or edited by hand`,
    );
  return { sinkClass, scenario };
}
