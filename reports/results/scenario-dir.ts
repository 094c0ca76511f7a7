import { storedSinkClass } from '../../harness/base/index.ts';
import type { SinkClassName } from '../../sinks/index.ts';

const SEPARATOR = '__';

/** The directory of one class x scenario in a run's report directory, `<class>__<scenario>`. */
export const scenarioDirName = (sinkClass: SinkClassName, scenario: string): string =>
  `${sinkClass}${SEPARATOR}${scenario}`;

export const isScenarioDirName = (name: string): boolean => name.includes(SEPARATOR);

/** The class and scenario a directory name holds; a class that is none of ours is refused, naming the directory. */
export function parseScenarioDirName(name: string): { readonly sinkClass: SinkClassName; readonly scenario: string } {
  const [sinkClass, scenario = ''] = name.split(SEPARATOR);
  return { sinkClass: storedSinkClass(sinkClass, `Scenario directory '${name}'`), scenario };
}
