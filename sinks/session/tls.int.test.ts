import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessClient, type StartedLocalCluster } from '../../harness/cluster/index.ts';
import { createShardedTable } from '../../harness/clickhouse/index.ts';
import { startEmbeddedCluster } from '../../harness/cluster/embedded/start-embedded.ts';
import type { InsertAttempt } from '../api.ts';
import { createSink, SINK_IMPLEMENTATIONS } from '../classes/create-sink.ts';
import { messageId } from '../domain/message-id.ts';
import { sendAttempt } from '../insert/send-attempt.ts';
import { classifyInsertError } from '../retry/error-classification.ts';
import { parseSinkSpec } from '../spec/validate-spec.ts';
import { captureLogs } from '../testing/log-capture.ts';
import { RecordingObserver } from '../testing/recording-observer.ts';
import { makeTestCertificates, startTlsTerminator, type TestCertificates } from '../testing/tls-terminator.ts';
import { EndpointClient } from './endpoint-client.ts';
import { endpointOf } from './endpoint.ts';
import { loadTlsSettings } from './tls-settings.ts';

// TLS for real: a TLS terminator with an openssl-made certificate in front of the node's HTTP
// port (the embedded engine has no TLS listener), and the sink's own HTTPS client.
let cluster: StartedLocalCluster;
let admin: ClickHouseClient;
let certificates: TestCertificates;
let terminator: Awaited<ReturnType<typeof startTlsTerminator>>;
const dir = mkdtempSync(join(tmpdir(), 'sink-tls-it-'));
let sequence = 0;

beforeAll(async () => {
  certificates = makeTestCertificates(join(dir, 'pki'));
  mkdirSync(join(dir, 'ca-dir'));
  copyFileSync(certificates.caFile, join(dir, 'ca-dir', 'sink-ca.crt'));
  writeFileSync(join(dir, 'ca-dir', 'README'), 'not a certificate');
  cluster = await startEmbeddedCluster({ topology: { shards: 1, replicas: 1, keepers: 1 } });
  const node = cluster.description.shards[0]?.replicas[0];
  if (!node) throw new Error('no node');
  admin = harnessClient(node.http);
  await createShardedTable([admin], { database: 'tls', name: 't', columns: 'id String', orderBy: 'id' });
  terminator = await startTlsTerminator(certificates, Number(new URL(node.direct_http).port));
});

afterAll(async () => {
  await terminator?.close();
  await admin?.close();
  await cluster?.down();
  rmSync(dir, { recursive: true, force: true });
});

async function writeOne(tls: Record<string, unknown>) {
  const spec = parseSinkSpec(
    {
      sink_class_name: 'AtLeastOnceClickHouseSink',
      name: 'tls',
      parameters: {
        host: '127.0.0.1',
        port: terminator.port,
        database: 'tls',
        table: 't_rep',
        enable_tls: true,
        ...tls,
      },
    },
    { registry: SINK_IMPLEMENTATIONS },
  );
  const observer = new RecordingObserver();
  const sink = createSink(spec, {
    partition: 0,
    observer,
    env: {},
    streamSchema: [{ name: 'id', type: 'string' }],
    logger: captureLogs().logger,
  });
  if (sink.kind !== 'at-least-once') throw new Error('wrong kind');
  sequence += 1;
  try {
    await sink.writeEpoch(sequence, [
      { id: messageId(`1-0-${sequence}`), row: { id: `tls-${sequence}` }, byteSize: 8 },
    ]);
  } finally {
    await sink.close();
  }
  const rows = await (
    await admin.query({
      query: 'SELECT id FROM tls.t_rep WHERE id = {id:String}',
      query_params: { id: `tls-${sequence}` },
      format: 'JSONEachRow',
    })
  ).json();
  return { rows, observer };
}

describe('TLS to a real TLS endpoint', () => {
  it('verifies the server against tls_ca_files and reports the body sent through TLS', async () => {
    const { rows, observer } = await writeOne({ tls_ca_files: [certificates.caFile] });
    expect(rows).toEqual([{ id: `tls-${sequence}` }]);
    expect(observer.attempts.map((a) => [a.sent, a.result?.outcome])).toEqual([[true, 'ok']]);
  });

  it('verifies the server against every *.crt / *.pem of tls_ca_directory', async () => {
    expect((await writeOne({ tls_ca_directory: join(dir, 'ca-dir') })).rows).toHaveLength(1);
  });

  it('connects without verification when tls_skip_verification is set', async () => {
    expect((await writeOne({ tls_skip_verification: true })).rows).toHaveLength(1);
  });

  it.each([
    ['a CA that did not sign the server certificate', { tls_ca_files: [join(dir, 'pki', 'other-ca.pem')] }],
    ['only the system roots', {}],
  ])('refuses the session with %s, classified permanent', async (_, tls) => {
    const error = await writeOne(tls).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'SINK_TLS_REFUSED',
      message: expect.stringContaining(`127.0.0.1:${terminator.port}`),
    });
    expect(classifyInsertError(error)).toBe('permanent');
  });

  it('reports an INSERT refused by certificate verification as failed and never started', async () => {
    const tls = loadTlsSettings({
      enable_tls: true,
      tls_ca_files: [join(dir, 'pki', 'other-ca.pem')],
      tls_ca_directory: '',
      tls_skip_verification: false,
    });
    const parameters = parseSinkSpec(
      {
        sink_class_name: 'AtLeastOnceClickHouseSink',
        name: 'x',
        parameters: { host: '127.0.0.1', table: 't_rep', enable_tls: true },
      },
      { registry: SINK_IMPLEMENTATIONS },
    ).parameters;
    const endpoint = new EndpointClient(endpointOf('127.0.0.1', terminator.port), {
      parameters,
      env: {},
      writeTimeoutMs: 5000,
      tls,
    });
    const attempt: InsertAttempt = {
      sink: 'x',
      batch: 1,
      shard: null,
      endpoint: 'x',
      queryId: `tls-${Date.now()}`,
      messageIds: [],
      attempt: 1,
    };
    const report = await sendAttempt(
      endpoint,
      { statement: 'INSERT INTO tls.t_rep (id) FORMAT RowBinary', body: Buffer.from([1, 0x61]), settings: {} },
      attempt,
      {},
    );
    await endpoint.close();
    expect(report).toMatchObject({ started: false, result: { outcome: 'failed', error: { class: 'permanent' } } });
  });
});
