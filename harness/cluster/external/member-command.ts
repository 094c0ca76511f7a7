import { spawn } from 'node:child_process';
import { HarnessError } from '../../base/index.ts';

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
 *
 * The command runs in a process group of its own: a Ctrl-C at the terminal reaches the runner's
 * group, not a `resume` half-way through (which would leave its member paused while the runner
 * believes it resumed); a command that overruns its time is stopped with everything it started.
 */
export function runMemberCommand(command: MemberCommand): Promise<string> {
  const timeoutMs = command.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command.template, 'sh', command.member], {
      env: { ...process.env, CHAOS_MEMBER: command.member },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let overran = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      overran = true;
      stopGroup(child.pid);
    }, timeoutMs);
    const fail = (ended: string) => {
      const said = clipLine(stderr, command.secret);
      // The command text and its full output stay out of the error (and out of its cause): the
      // message travels into infra-error notes, and from there into every report format.
      reject(
        new HarnessError(
          'EXTERNAL_COMMAND_FAILED',
          `process_commands.${command.action} for ${command.member} ${ended}${said === '' ? '' : `: ${said}`}`,
        ),
      );
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(`could not run (${String(error.code)})`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (overran) fail(`did not finish within ${timeoutMs / 1000} s and was stopped`);
      else if (code === 0) resolve(stdout);
      else if (code !== null) fail(`exited with status ${code}`);
      else fail(`was ended by ${signal}`);
    });
  });
}

/** SIGKILL to the command's whole group: `sh` and whatever it started. */
function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
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
