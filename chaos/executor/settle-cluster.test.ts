import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultProxyClient } from '../nemeses/fault-proxy-client.ts';
import { stopMember } from '../nemeses/process-fault.ts';
import { RunUndo, UndoJournal } from '../nemeses/index.ts';
import { FakeCluster } from '../nemeses/test-support.ts';
import { settleCluster } from './settle-cluster.ts';

// Settling acts on what the harness itself stopped (the undo journal says what, and how to undo
// it); a member stopped by anyone else is revived only on a cluster the harness started.

const work = mkdtempSync(join(tmpdir(), 'settle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function setup(attached: boolean) {
  const cluster = new FakeCluster(['k1', 'k2'], {
    probe: attached ? 'unknown' : 'state',
    ...(attached ? { processActions: new Set(['kill', 'pause', 'resume', 'start']) } : {}),
  });
  const journal = new UndoJournal(
    join(work, `${attached ? 'attached' : 'started'}-${Math.random()}.jsonl`),
    cluster,
    undefined,
    new FaultProxyClient('http://127.0.0.1:1'),
  );
  return { cluster, journal, undo: new RunUndo(journal, 'run-0') };
}

describe('settleCluster', () => {
  it('on an attached cluster, resumes the member the harness paused and leaves one it did not stop alone: an infrastructure error naming it', async () => {
    const { cluster, journal, undo } = setup(true);
    await stopMember(undo.fault(), cluster, 'k1', 'pause');
    cluster.states.set('k2', 'dead');
    await expect(settleCluster(cluster, journal, 'chaos_x')).rejects.toThrow(
      /member k2 of the attached cluster is not answering, and the harness did not stop it/,
    );
    expect(cluster.calls).toEqual(['pause k1', 'resume k1']);
    expect(cluster.states.get('k2')).toBe('dead');
    expect(journal.entries()).toEqual([]);
  });

  it('on a cluster the harness started, revives a member that died on its own and says so', async () => {
    const { cluster, journal, undo } = setup(false);
    await stopMember(undo.fault(), cluster, 'k1', 'kill');
    cluster.states.set('k2', 'dead');
    expect(await settleCluster(cluster, journal, 'chaos_x')).toEqual(['k2']);
    expect(cluster.calls).toEqual(['kill k1', 'start k1', 'start k2']);
  });
});
