import { resolve } from 'node:path';
import { cppClassName, SINK_CLASS_NAMES, type SinkClassName } from './domain/sink-class-name.ts';
import { SinkRegistry } from './registry.ts';
import { SinkSpecRefusal } from './spec/spec-problem.ts';
import { validateSinkSpec } from './spec/validate-spec.ts';

export interface CliIo {
  readonly readFile: (path: string) => Promise<string>;
  /** Where relative paths are resolved: the directory `npm run` was started in. */
  readonly cwd: string;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const USAGE = 'usage: npm run sink -- validate <spec.json> [--without <sink class>]...';

/**
 * `validate <spec.json>`: prints `ok <class>` and returns 0, or prints every refusal and returns
 * 1. Usage, file and JSON errors are one line and return 2. `--without` drops a class from the
 * registry, to see what a binary lacking it would say.
 */
export async function runSinkCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'validate') {
    io.err(command === undefined ? USAGE : `unknown command '${command}'; ${USAGE}`);
    return 2;
  }
  const files: string[] = [];
  const without: SinkClassName[] = [];
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] ?? '';
    if (arg !== '--without') {
      files.push(arg);
      continue;
    }
    const name = SINK_CLASS_NAMES.find((candidate) =>
      [candidate, `T${candidate}`, cppClassName(candidate)].includes(rest[i + 1] ?? ''),
    );
    if (name === undefined) {
      io.err(`--without needs a sink class name (${SINK_CLASS_NAMES.join(', ')}); ${USAGE}`);
      return 2;
    }
    without.push(name);
    i += 1;
  }
  const [file] = files;
  if (file === undefined || files.length > 1) {
    io.err(USAGE);
    return 2;
  }

  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    io.err(`cannot read spec file '${path}': ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    io.err(`spec file '${path}' is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }

  const result = validateSinkSpec(raw, { registry: SinkRegistry.descriptorsOnly().without(...without) });
  if (result.ok) {
    io.out(`ok ${result.spec.sink_class_name}`);
    return 0;
  }
  const name = typeof (raw as { name?: unknown })?.name === 'string' ? (raw as { name: string }).name : undefined;
  io.err(new SinkSpecRefusal(result.problems, name).message);
  return 1;
}
