import { HarnessError } from '../base/index.ts';

export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A worker ended while a command (or its start) was pending: a planned crash, a kill, or a bug. */
export class WorkerExitedError extends HarnessError {
  constructor(
    readonly worker: string,
    readonly exit: WorkerExit,
    pending: string,
    logFile: string,
  ) {
    super(
      'FLOW_WORKER_EXITED',
      `Flow worker ${worker} exited (${exit.signal ?? `code ${exit.code}`}) while '${pending}' was pending; a SIGKILL after a crash event in the history is a planned crash, anything else is explained in ${logFile}`,
    );
  }
}

/** The worker refused its spec (e.g. a class its registry lacks) or its state file, before starting any partition. */
export class WorkerRefusedError extends HarnessError {
  constructor(
    readonly worker: string,
    readonly stage: 'spec' | 'store',
    readonly refusalCode: string,
    message: string,
  ) {
    super('FLOW_WORKER_REFUSED', message);
  }
}
