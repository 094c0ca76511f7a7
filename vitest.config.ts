import { defineConfig } from 'vitest/config';

// Four projects, selectable with `--project`: fast pure tests beside the code (`*.test.ts`),
// real-cluster integration tests (`*.int.test.ts`), chaos properties (`*.chaos.test.ts`) and the
// mutants `npm test` leaves to CI (`*.mutants.test.ts`, `npm run test:mutants`).
// The real tiers run files one at a time: each file owns a cluster and the machine has 2 cores.
const roots = ['harness', 'sinks', 'properties', 'chaos', 'reports'];
const under = (suffix: string) => roots.map((root) => `${root}/**/*${suffix}`);
// What runs write under `reports/` (as `.gitignore` has it): a mutants run keeps its mutated copy
// of the sources there, tests and a `node_modules` link included, which must never run as ours.
const RUN_OUTPUT = ['**/node_modules/**', 'reports/[0-9]*/**', 'reports/latest/**', 'reports/mutants/**'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: under('.test.ts'),
          exclude: [...RUN_OUTPUT, ...under('.int.test.ts'), ...under('.chaos.test.ts'), ...under('.mutants.test.ts')],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          exclude: RUN_OUTPUT,
          include: under('.int.test.ts'),
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'chaos',
          exclude: RUN_OUTPUT,
          include: under('.chaos.test.ts'),
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'mutants',
          exclude: RUN_OUTPUT,
          include: under('.mutants.test.ts'),
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
