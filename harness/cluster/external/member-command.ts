import { execFile, type ExecFileException } from 'node:child_process';
import { HarnessError } from '../../errors.ts';

export interface MemberCommand {
  /** The `process_commands` entry it comes from, for the error line: `kill`, `status`. */
  readonly action: string;
  /** The cluster owner's shell command; it reads the member from `$CHAOS_MEMBER` or `$1`. */
  readonly template: string;
  readonly member: string;
  /** A value never repeated from the command's output (the cluster's password, when it has one). */
  readonly secret?: string | undefined;
  readonly timeoutMs?: number;
}

/**
 * Runs an owner's command on one member as `sh -c <command> sh <member>`, with the member also in
 * the environment as `CHAOS_MEMBER`: the member reaches the command as data, never as shell text.
 * What the command then does with it is its author's: handing it to a second shell as text
 * (`sh -c "kill $CHAOS_MEMBER"`, `ssh host "kill $CHAOS_MEMBER"`) is safe only because the
 * cluster file's member names are validated (`NAME`). Resolves to the command's stdout.
 */
export function runMemberCommand(command: MemberCommand): Promise<string> {
  const timeoutMs = command.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', command.template, 'sh', command.member],
      { env: { ...process.env, CHAOS_MEMBER: command.member }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve(stdout);
          return;
        }
        const said = clipLine(stderr, command.secret);
        // The command text and its full output stay out of the error (and out of its cause): the
        // message travels into infra-error notes, and from there into every report format.
        reject(
          new HarnessError(
            'EXTERNAL_COMMAND_FAILED',
            `process_commands.${command.action} for ${command.member} ${howItEnded(error, timeoutMs)}${said === '' ? '' : `: ${said}`}`,
          ),
        );
      },
    );
  });
}

function howItEnded(error: ExecFileException, timeoutMs: number): string {
  if (error.killed === true) return `did not finish within ${timeoutMs / 1000} s and was stopped`;
  if (typeof error.code === 'number') return `exited with status ${error.code}`;
  if (error.signal) return `was ended by ${error.signal}`;
  return `could not run (${String(error.code)})`;
}

const MAX_LINE = 200;

/**
 * The first non-empty line of a command's output as the harness may repeat it: `secret` masked
 * (before clipping, so no part of it survives), control characters blanked, at most 200 characters.
 */
export function clipLine(output: string, secret: string | undefined): string {
  const masked = secret === undefined || secret === '' ? output : output.replaceAll(secret, '***');
  const line = masked
    .split('\n')
    .map((each) => each.replace(/[\u0000-\u001f\u007f]/g, ' ').trim())
    .find((each) => each !== '');
  if (line === undefined) return '';
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}
