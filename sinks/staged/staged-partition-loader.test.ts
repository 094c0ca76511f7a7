import { describe, expect, it } from 'vitest';
import {
  type LoaderConnection,
  type LoaderStep,
  StagedPartitionLoader,
  type StagedLoad,
  type StagedRow,
} from './staged-partition-loader.ts';

/** A connection that records what it was sent and fails the calls a test names. */
function recording(fails: (sent: string, index: number) => boolean = () => false) {
  const sent: string[] = [];
  const staged = new Map<string, number>();
  const call = (what: string) => {
    sent.push(what);
    if (fails(what, sent.length - 1)) throw new Error(`cut: ${what}`);
  };
  const connection: LoaderConnection = {
    async command(query) {
      call(query);
      if (query.startsWith('TRUNCATE')) staged.set(query.split('.')[1] ?? '', 0);
    },
    async insert(table, rows: readonly StagedRow[]) {
      call(`INSERT ${table} ${rows.length}`);
      const name = table.split('.')[1] ?? '';
      staged.set(name, (staged.get(name) ?? 0) + rows.length);
    },
    async count(query) {
      call(query);
      return staged.get(/FROM \w+\.(\w+)/.exec(query)?.[1] ?? '') ?? 0;
    },
  };
  return { connection, sent };
}

const rows = (load: number, from: number, n: number): StagedRow[] =>
  Array.from({ length: n }, (_, k) => ({ load, id: from + k, payload: `p${from + k}` }));

const twoTables: StagedLoad = {
  load: 7,
  tables: [
    { table: 'a', batches: [rows(7, 1, 2), rows(7, 3, 1)] },
    { table: 'b', batches: [rows(7, 1, 4)] },
  ],
};

describe('StagedPartitionLoader', () => {
  it('stages every table before it publishes any, then cleans staging', async () => {
    const { connection, sent } = recording();
    const loader = new StagedPartitionLoader({
      database: 'db',
      operation: 'move',
      maxAttempts: 3,
      retryBackoffMs: 0,
      connection,
    });
    expect(await loader.load(twoTables)).toEqual({ outcome: 'published' });
    const publishes = sent.flatMap((what, index) => (what.includes('MOVE PARTITION') ? [index] : []));
    const stagingWrites = sent.flatMap((what, index) => (what.startsWith('INSERT') ? [index] : []));
    expect(publishes).toHaveLength(2);
    expect(Math.max(...stagingWrites)).toBeLessThan(Math.min(...publishes));
    expect(sent.at(-1)).toBe('TRUNCATE TABLE db.b_staging');
    expect(sent).toContain('ALTER TABLE db.a_staging MOVE PARTITION 7 TO TABLE db.a');
  });

  it('a staging load that fails is truncated and written whole again, production untouched until it verifies', async () => {
    let failed = false;
    const { connection, sent } = recording((what) => {
      if (failed || what !== 'INSERT db.a_staging 1') return false;
      failed = true;
      return true;
    });
    const loader = new StagedPartitionLoader({
      database: 'db',
      operation: 'replace',
      maxAttempts: 3,
      retryBackoffMs: 0,
      connection,
    });
    expect(await loader.load(twoTables)).toEqual({ outcome: 'published' });
    const aStaging = sent.filter((what) => what.includes('a_staging') && !what.startsWith('ALTER'));
    expect(aStaging).toEqual([
      'TRUNCATE TABLE db.a_staging',
      'INSERT db.a_staging 2',
      'INSERT db.a_staging 1',
      'TRUNCATE TABLE db.a_staging',
      'INSERT db.a_staging 2',
      'INSERT db.a_staging 1',
      'SELECT count() FROM db.a_staging WHERE load = 7',
      'TRUNCATE TABLE db.a_staging',
    ]);
  });

  it('a publication whose outcome is unknown is repeated as it was, never staged again', async () => {
    let cuts = 0;
    const { connection, sent } = recording(
      (what) => what.includes('ATTACH PARTITION 7 FROM db.b_staging') && cuts++ < 2,
    );
    const steps: LoaderStep[] = [];
    const loader = new StagedPartitionLoader({
      database: 'db',
      operation: 'attach',
      maxAttempts: 3,
      retryBackoffMs: 0,
      connection,
      observer: { before: async (step) => void steps.push(step) },
    });
    expect(await loader.load(twoTables)).toEqual({ outcome: 'published' });
    expect(sent.filter((what) => what === 'ALTER TABLE db.b ATTACH PARTITION 7 FROM db.b_staging')).toHaveLength(3);
    expect(sent.filter((what) => what.startsWith('INSERT db.b_staging'))).toHaveLength(1);
    expect(steps.filter((step) => step.kind === 'publish' && step.table === 'b').map((step) => step.attempt)).toEqual([
      1, 2, 3,
    ]);
  });

  it('gives a load up after its attempts, saying in which phase and which tables were already published', async () => {
    const { connection } = recording((what) => what.startsWith('ALTER TABLE db.b'));
    const loader = new StagedPartitionLoader({
      database: 'db',
      operation: 'replace',
      maxAttempts: 2,
      retryBackoffMs: 0,
      connection,
    });
    expect(await loader.load(twoTables)).toEqual({
      outcome: 'gave-up',
      phase: 'publish',
      table: 'b',
      published: ['a'],
      error: 'cut: ALTER TABLE db.b REPLACE PARTITION 7 FROM db.b_staging',
    });
  });

  it('a staging count that disagrees is a failed attempt, and the load is given up before anything is published', async () => {
    const { connection, sent } = recording();
    const loader = new StagedPartitionLoader({
      database: 'db',
      operation: 'move',
      maxAttempts: 2,
      retryBackoffMs: 0,
      connection: { ...connection, count: async () => 1 },
    });
    const outcome = await loader.load(twoTables);
    expect(outcome).toMatchObject({ outcome: 'gave-up', phase: 'stage', table: 'a', published: [] });
    expect(sent.some((what) => what.startsWith('ALTER'))).toBe(false);
  });

  it('a publication the engine refuses is not repeated: the load is refused, naming the server code', async () => {
    const { connection, sent } = recording();
    const refusing: typeof connection = {
      ...connection,
      async command(query) {
        if (query.startsWith('ALTER TABLE db.a'))
          throw Object.assign(new Error('Tables have different partition key.'), { code: '36' });
        return connection.command(query);
      },
    };
    const loader = new StagedPartitionLoader({
      database: 'db',
      operation: 'replace',
      maxAttempts: 3,
      retryBackoffMs: 0,
      connection: refusing,
    });
    expect(await loader.load(twoTables)).toEqual({
      outcome: 'refused',
      table: 'a',
      published: [],
      error: 'code 36: Tables have different partition key.',
    });
    expect(sent.some((what) => what.startsWith('ALTER TABLE db.b'))).toBe(false);
  });
});
