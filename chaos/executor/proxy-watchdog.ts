import { HarnessError } from '../../harness/base/index.ts';
import { faultProxyAnswers } from './settle-cluster.ts';

/** Checks this far apart, and this many failed in a row (each two tries), make the proxy down. */
const CHECK_EVERY_MS = 1_000;
const FAILED_CHECKS = 3;

/**
 * Watches the fault proxy while a run goes on: every link of the cluster runs through it, so once
 * it stops answering no write, fault or drain can end, and a sink that retries for ever (at-least-
 * once) would hold the run with it. `onDown` gets the infra-error to end the run with; the
 * returned function stops the watch. No proxy (an attached cluster without one): nothing watched.
 */
export function watchFaultProxy(url: string | null, onDown: (error: HarnessError) => void): () => void {
  if (url === null) return () => undefined;
  let stopped = false;
  let failed = 0;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    if (stopped) return;
    failed = (await faultProxyAnswers(url)) ? 0 : failed + 1;
    if (stopped) return;
    if (failed >= FAILED_CHECKS) {
      stopped = true;
      onDown(
        new HarnessError(
          'FAULT_PROXY_DOWN',
          `the fault proxy at ${url} does not answer during the run: every link of the cluster runs through it`,
        ),
      );
      return;
    }
    timer = setTimeout(() => void check(), CHECK_EVERY_MS);
  };
  timer = setTimeout(() => void check(), CHECK_EVERY_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
