import type { Logger } from 'pino';
import { describeError } from '../../harness/base/index.ts';
import type { RunUndo } from '../nemeses/index.ts';
import type { RunWorkers } from './run-workers.ts';

/**
 * Every path of a run ends here, whatever phase it stopped in: its workers stopped, then
 * everything it did that is still in force undone, its database last. Returns the run's harness
 * failure: an undo that failed is one (what stays in force is named; a pass earned beside a
 * fault that outlived its run proves nothing), added to any failure the run already had.
 */
export async function endRun(
  workers: Pick<RunWorkers, 'close'>,
  undo: Pick<RunUndo, 'stop'>,
  infraError: string | undefined,
  log: Logger,
): Promise<string | undefined> {
  await workers.close();
  try {
    await undo.stop(infraError ?? 'the run ended');
    return infraError;
  } catch (error) {
    log.error({ err: describeError(error) }, 'undoing what the run did failed');
    return [infraError, describeError(error)].filter((text) => text !== undefined).join('; ');
  }
}
