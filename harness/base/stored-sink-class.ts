import { isSinkClassName, SINK_CLASS_NAMES, type SinkClassName } from '../../sinks/index.ts';
import { HarnessError } from './errors.ts';

/**
 * A sink class name read back from a file a run wrote (its history, check input, run result, a
 * scenario directory's name): checked rather than cast, so a file from another version or edited
 * by hand fails here, naming the file, instead of later as a class with no descriptor.
 */
export function storedSinkClass(value: unknown, where: string): SinkClassName {
  if (typeof value === 'string' && isSinkClassName(value)) return value;
  throw new HarnessError(
    'STORED_SINK_CLASS_INVALID',
    `${where} names the sink class ${JSON.stringify(value)}, not one of ${SINK_CLASS_NAMES.join(', ')}; the file was written by another version of the harness or edited by hand: run again to rewrite it`,
  );
}
