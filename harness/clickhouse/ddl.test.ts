import { describe, expect, it } from 'vitest';
import { distributedTableDdl } from './ddl.ts';

const table = { database: 'd', name: 'events', columns: 'id String', orderBy: 'id' };

describe('the Distributed union', () => {
  it('spans the cluster the description names (a cluster file need not call it chaos)', () => {
    expect(distributedTableDdl({ ...table, cluster: 'prod_2x2' })).toContain(
      "ENGINE = Distributed('prod_2x2', 'd', 'events_rep')",
    );
  });

  it("spans the harness's own cluster when none is named", () => {
    expect(distributedTableDdl(table)).toContain("ENGINE = Distributed('chaos', 'd', 'events_rep')");
  });
});
