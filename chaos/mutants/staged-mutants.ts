import type { AnomalyKind } from '../../properties/checkers/index.ts';

/**
 * A bug in the staged loader (`sinks/staged/`) as a person would ship it: one edit to its source,
 * applied to a copy of the tree (`mutated-tree.ts`) the self-test then loads the loader from.
 * Each is caught by the scenario that names it, in its category.
 */
export interface StagedMutant {
  readonly category: AnomalyKind;
  readonly scenario: string;
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  readonly why: string;
}

const LOADER = 'sinks/staged/staged-partition-loader.ts';

export const STAGED_MUTANTS = {
  'restage-on-publish-retry': {
    category: 'duplicated',
    scenario: 'staged-move-unknown',
    file: LOADER,
    find: `      await this.backoff(attempt);
      try {
        await this.step({ kind: 'publish', load, table, attempt }, () => connection.command(statement));`,
    replace: `      await this.backoff(attempt);
      if (attempt > 1 && (await this.stage(load, part)) !== undefined) continue;
      try {
        await this.step({ kind: 'publish', load, table, attempt }, () => connection.command(statement));`,
    why: 'Starting a failed publication over from a freshly staged and verified copy looks like the careful thing to do. When the lost answer hid a MOVE that had committed, the load is staged and moved a second time: published twice.',
  },
  'one-table-load-unstaged': {
    category: 'fractured-read',
    scenario: 'staged-replace-unknown',
    file: LOADER,
    find: `  async load(load: StagedLoad): Promise<LoadOutcome> {
`,
    replace: `  async load(load: StagedLoad): Promise<LoadOutcome> {
    const [only, ...others] = load.tables;
    if (only !== undefined && others.length === 0) {
      for (const [index, batch] of only.batches.entries()) {
        await this.options.observer?.arrival?.(load.load, only.table, index);
        await this.options.connection.insert(\`\${this.options.database}.\${only.table}\`, batch);
      }
      return { outcome: 'published' };
    }
`,
    why: 'Staging exists to hide the window between tables, and every INSERT is atomic, so a load of one table seems not to need it: it is written to production as its batches arrive. A reader between two batches sees part of the load.',
  },
  'refused-falls-back-to-insert-select': {
    category: 'refusal-missing',
    scenario: 'staged-refused',
    file: LOADER,
    find: `        if (REFUSALS.has(codeOf(error))) return new Refusal(\`code \${codeOf(error)}: \${messageOf(error)}\`);`,
    replace: `        if (REFUSALS.has(codeOf(error))) {
          await connection.command(
            \`INSERT INTO \${database}.\${table} SELECT load, id, payload FROM \${database}.\${stagingTable(table)} WHERE load = \${load}\`,
          );
          return undefined;
        }`,
    why: 'When the engine refuses to switch the partition (the tables differ in a key or an ordering), copying the rows with INSERT … SELECT still gets the load into production and the error goes away. The load is no longer published atomically, and nobody is told that staging and production drifted apart.',
  },
} as const satisfies Readonly<Record<string, StagedMutant>>;

export type StagedMutantName = keyof typeof STAGED_MUTANTS;
