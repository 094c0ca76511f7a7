import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeError } from '../../base/index.ts';
import { REAL_TOXIPROXY_BINARY, REAL_TOXIPROXY_MODULE, REAL_TOXIPROXY_VERSION } from './real-toxiproxy.ts';

// `npm run build:toxiproxy`: builds the pinned real Toxiproxy with `go install` (the Go module
// proxy and build cache make a second build a few seconds) and prints its path. Already built: a no-op.
try {
  if (!existsSync(REAL_TOXIPROXY_BINARY)) {
    const bin = mkdtempSync(join(tmpdir(), 'toxiproxy-build-'));
    try {
      // Its Makefile stamps the version the same way; without it `/version` answers `git`.
      const stamp = `-X github.com/Shopify/toxiproxy/v2.Version=${REAL_TOXIPROXY_VERSION}`;
      execFileSync('go', ['install', '-ldflags', stamp, REAL_TOXIPROXY_MODULE], {
        env: { ...process.env, GOBIN: bin, CGO_ENABLED: '0' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      mkdirSync(dirname(REAL_TOXIPROXY_BINARY), { recursive: true });
      renameSync(join(bin, 'server'), REAL_TOXIPROXY_BINARY);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }
  console.log(REAL_TOXIPROXY_BINARY);
} catch (error) {
  console.error(`build:toxiproxy: ${describeError(error)}`);
  process.exit(1);
}
