import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterDescription } from '../../harness/cluster/index.ts';
import { FaultProxyClient } from '../nemeses/fault-proxy-client.ts';
import { stopMember } from '../nemeses/process-fault.ts';
import { RunUndo, UndoJournal } from '../nemeses/index.ts';
import { FakeCluster } from '../nemeses/test-support.ts';
import { awaitWritableReplicas, settleCluster } from './settle-cluster.ts';

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

describe('awaitWritableReplicas', () => {
  // A replica that never answers, behind a fault proxy that answers or not.
  const description = (toxiproxy: string) =>
    ({
      shards: [{ name: 's1', replicas: [{ name: 's1r1', direct_http: 'http://127.0.0.1:1' }] }],
      credentials: { username: 'default', password: '' },
      toxiproxy,
    }) as unknown as ClusterDescription;

  it('gives the wait up at once when the fault proxy does not answer, naming it', async () => {
    const started = Date.now();
    await expect(
      awaitWritableReplicas({ description: description('http://127.0.0.1:1') }, 'chaos_x', 60_000),
    ).rejects.toThrow(/the fault proxy at http:\/\/127\.0\.0\.1:1 does not answer while replica s1r1 is not writable/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('waits its whole timeout while the fault proxy answers', async () => {
    const proxy = createServer((_request, response) => response.end('{"version": "2.12.0"}\n'));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    try {
      await expect(
        awaitWritableReplicas({ description: description(`http://127.0.0.1:${port}`) }, 'chaos_x', 1500),
      ).rejects.toThrow(/replica s1r1 still has read-only tables in chaos_x \(unreachable\) 1500 ms after healing/);
    } finally {
      proxy.close();
    }
  });
});
