import { defineConfig } from 'vitest/config';
import { REAL_TOXIPROXY_BINARY } from './harness/cluster/real-toxiproxy/real-toxiproxy.ts';

// Five projects, selectable with `--project`: fast pure tests beside the code (`*.test.ts`),
// real-cluster integration tests (`*.int.test.ts`), chaos properties (`*.chaos.test.ts`), the
// mutants `npm test` leaves to CI (`*.mutants.test.ts`, `npm run test:mutants`), and the fault
// proxy's conformance tests run a second time against the real Toxiproxy (`toxiproxy-real`).
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
          name: 'toxiproxy-real',
          // Every conformance test but those of our server's own start-up and CLI.
          include: ['chaos/toxiproxy/*.test.ts'],
          exclude: ['chaos/toxiproxy/server.test.ts', 'chaos/toxiproxy/cli.test.ts'],
          env: { TOXIPROXY_SERVER_BINARY: REAL_TOXIPROXY_BINARY },
          testTimeout: 20_000,
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
