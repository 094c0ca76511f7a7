import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readClusterFile } from './cluster-file.ts';
import { runMemberCommand } from './member-command.ts';

// The runner is called directly with names a cluster file can no longer carry (readClusterFile
// refuses them): what it does must not depend on that validation.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'member-command-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Alive and not a zombie waiting for a parent that no longer exists to reap it. */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const hostile = () => [
  `s1r1$(touch ${dir}/dollar)`,
  `s1r1\`touch ${dir}/backtick\``,
  `s1r1; touch ${dir}/semicolon`,
  `s1r1' ; touch ${dir}/quote ; '`,
  `s1r1" ; touch ${dir}/dquote ; "`,
];

describe('a process command on one member', () => {
  it.each([
    ['the variable, quoted', 'echo kill "$CHAOS_MEMBER"'],
    ['the variable, unquoted', 'echo kill $CHAOS_MEMBER'],
    ['the variable inside a double-quoted word', 'echo "kill $CHAOS_MEMBER now"'],
    ['the first argument', 'echo \'kill\' "$1"'],
    ['a second shell that reads the variable itself', `sh -c 'echo kill "$CHAOS_MEMBER"'`],
    ['a second shell given the member as its argument', `sh -c 'echo kill "$1"' sh "$CHAOS_MEMBER"`],
  ])('gets the member as data through %s: a name holding shell text runs nothing', async (_, template) => {
    for (const member of hostile()) {
      const out = await runMemberCommand({ action: 'kill', template, member });
      expect(out).toContain('kill');
      expect(out).toContain('touch');
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("leaves to the template's author a command that hands the member to a second shell as text: safe only because names are validated", async () => {
    const member = `s1r1$(touch ${dir}/executed)`;
    await runMemberCommand({ action: 'kill', template: 'sh -c "echo kill $CHAOS_MEMBER"', member });
    expect(existsSync(join(dir, 'executed'))).toBe(true);
    const file = join(dir, 'cluster.json');
    writeFileSync(
      file,
      JSON.stringify({
        cluster: 'c',
        toxiproxy: 'http://127.0.0.1:8474',
        keepers: [],
        shards: [
          {
            name: 's1',
            replicas: [
              {
                name: member,
                http: 'http://127.0.0.1:1',
                direct_http: 'http://127.0.0.1:2',
                proxies: { client: 'c', interserver: 'i', keepers: [] },
              },
            ],
          },
        ],
      }),
    );
    expect(() => readClusterFile(file)).toThrow(/shards\[0\]\.replicas\[0\]\.name must be a name/);
  });

  it('reports a failure as the action, the member, the exit status and one clipped line of stderr, the password masked', async () => {
    const failing = runMemberCommand({
      action: 'pause',
      template: `echo "kubectl -n prod --token s3cr3t pause $CHAOS_MEMBER" >&2; echo second line >&2; exit 3`,
      member: 's1r2',
      secret: 's3cr3t',
    });
    await expect(failing).rejects.toMatchObject({
      code: 'EXTERNAL_COMMAND_FAILED',
      message: 'process_commands.pause for s1r2 exited with status 3: kubectl -n prod --token *** pause s1r2',
    });
  });

  it('clips a long stderr line after masking, so no piece of the password survives the cut', async () => {
    const secret = 'p'.repeat(40);
    const failing = runMemberCommand({
      action: 'kill',
      template: `printf '%0190d${secret}' 0 >&2; exit 1`,
      member: 's1r1',
      secret,
    });
    const error = (await failing.catch((thrown: unknown) => thrown)) as Error;
    expect(error.message).not.toContain('ppp');
    expect(error.message).toMatch(/status 1: 0{190}\*\*\*$/);
    const long = (await runMemberCommand({
      action: 'kill',
      template: 'printf "%0500d" 0 >&2; exit 1',
      member: 's1r1',
    }).catch((thrown: unknown) => thrown)) as Error;
    expect(long.message).toMatch(/status 1: 0{200}…$/);
  });

  it('runs the command in a process group of its own, so a Ctrl-C meant for the runner cannot cut it short', async () => {
    const group = (
      await runMemberCommand({ action: 'status', template: 'ps -o pgid= -p $$ # "$1"', member: 's1r1' })
    ).trim();
    const ours = execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }).trim();
    expect(group).not.toBe(ours);
  });

  it('stops what an overrunning command started, not only its shell', async () => {
    const pidFile = join(dir, 'sleeper');
    const slow = runMemberCommand({
      action: 'start',
      template: `sleep 30 & echo $! > ${pidFile}; wait # "$1"`,
      member: 'k1',
      timeoutMs: 300,
    });
    await expect(slow).rejects.toThrow('did not finish within 0.3 s');
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running(sleeper)).toBe(false);
  });

  it('stops a command that does not finish in time and says so', async () => {
    const slow = runMemberCommand({ action: 'start', template: 'exec sleep 5 # "$1"', member: 'k1', timeoutMs: 200 });
    await expect(slow).rejects.toThrow('process_commands.start for k1 did not finish within 0.2 s and was stopped');
  });
});
