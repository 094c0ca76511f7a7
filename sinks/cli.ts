import { readFile } from 'node:fs/promises';
import { runSinkCli } from './cli-commands.ts';

// npm runs scripts from the package root; INIT_CWD is where the user typed the command.
const exitCode = await runSinkCli(process.argv.slice(2), {
  readFile: (path) => readFile(path, 'utf8'),
  cwd: process.env.INIT_CWD ?? process.cwd(),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
process.exitCode = exitCode;
