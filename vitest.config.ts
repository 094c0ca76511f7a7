import { defineConfig } from 'vitest/config';

// Four projects, selectable with `--project`: fast pure tests beside the code (`*.test.ts`),
// real-cluster integration tests (`*.int.test.ts`), chaos properties (`*.chaos.test.ts`) and the
// mutants `npm test` leaves to CI (`*.mutants.test.ts`, `npm run test:mutants`).
// The real tiers run files one at a time: each file owns a cluster and the machine has 2 cores.
const roots = ['harness', 'sinks', 'properties', 'chaos', 'reports'];
const under = (suffix: string) => roots.map((root) => `${root}/**/*${suffix}`);

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: under('.test.ts'),
          exclude: [...under('.int.test.ts'), ...under('.chaos.test.ts'), ...under('.mutants.test.ts')],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: under('.int.test.ts'),
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'chaos',
          include: under('.chaos.test.ts'),
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'mutants',
          include: under('.mutants.test.ts'),
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
