/**
 * The worker process: hosts one sink spec over a set of partitions, started by `supervisor.ts`
 * with `child_process.fork` and driven over IPC. Its crash points are real: at an armed point it
 * appends (and syncs) a `crash` event, then SIGKILLs itself, so nothing after the point runs and
 * nothing is cleaned up — exactly what a restart must recover from.
 */
import { pathToFileURL } from 'node:url';
import { componentLogger, fileLogger } from '../base/index.ts';
import { type GatePhase, HistoryWriter } from './history/index.ts';
import type { CrashAction } from './runtime/crash-points.ts';
import type { GateChannel } from './runtime/insert-gates.ts';
import { errorFields } from './runtime/partition-runtime.ts';
import type { SinkFactoryModule } from './runtime/sink-factory.ts';
import type { WorkerConfig } from './worker-config.ts';
import { WorkerHost } from './worker-host.ts';
import {
  REFUSED_EXIT_CODE,
  type SupervisorMessage,
  type WorkerCommand,
  type WorkerMessage,
} from './worker-protocol.ts';

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolveSent) => {
    if (!process.send) throw new Error('worker.ts must be started with an IPC channel (child_process.fork)');
    process.send(message, undefined, {}, () => resolveSent());
  });
}

function killSelf(history: HistoryWriter, workerId: string): CrashAction {
  return async (hit) => {
    history.append({ type: 'crash', worker: workerId, ...hit });
    history.sync();
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL is delivered on the way back to user space; block so not one more instruction of
    // the runtime runs in the meantime.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  };
}

/** Gate holds travel to the supervisor over IPC; its `gate-open` answer ends the hold. */
function ipcGateChannel(): GateChannel {
  const waiting = new Map<string, () => void>();
  process.on('message', (message: SupervisorMessage) => {
    if (message.type !== 'gate-open') return;
    const key = `${message.gate}/${message.phase}`;
    waiting.get(key)?.();
    waiting.delete(key);
  });
  return {
    hold(phase: GatePhase, attempt, outcome) {
      return new Promise((resolveHold) => {
        waiting.set(`${attempt.gate}/${phase}`, resolveHold);
        void send({ type: 'gate-held', phase, attempt, ...(outcome === undefined ? {} : { outcome }) });
      });
    },
  };
}

async function main(config: WorkerConfig): Promise<void> {
  const log = config.logPath
    ? fileLogger(config.logPath, 'flow-worker')
    : componentLogger('flow-worker', { worker: config.workerId });
  const history = HistoryWriter.open(config.historyDir, config.workerId);
  // The real factory's import is a literal, so the bundled worker (`worker-bundle.ts`) carries it
  // inside; only an override is loaded by path, and only under tsx.
  const factoryModule: SinkFactoryModule = config.factoryModule
    ? ((await import(pathToFileURL(config.factoryModule).href)) as SinkFactoryModule)
    : await import('./runtime/real-sink-factory.ts');
  const factory = await factoryModule.createSinkFactory({ without: config.without ?? [] });

  const started = await WorkerHost.start(config, factory, {
    history,
    crashAction: killSelf(history, config.workerId),
    log,
    gates: ipcGateChannel(),
  });
  if (!(started instanceof WorkerHost)) {
    history.close();
    await send({ type: 'start-refused', refusal: started });
    process.exit(REFUSED_EXIT_CODE);
  }
  const host = started;
  await send({ type: 'started', partitions: host.status() });

  const execute = async (command: WorkerCommand): Promise<unknown> => {
    switch (command.op) {
      case 'run-epochs':
        return host.runEpochs(command.count, command.partitions);
      case 'drain':
        await host.drain(command.partitions);
        return null;
      case 'status':
        return host.status();
      case 'reconfigure':
        await host.reconfigure(command.dynamic, command.partitions);
        return null;
      case 'arm-gate':
        host.armGate(command.plan);
        return null;
      case 'disarm-gate':
        return host.disarmGate(command.gate);
      case 'stop':
        await host.close();
        history.close();
        return null;
    }
  };
  process.on('message', (message: SupervisorMessage) => {
    if (message.type !== 'request') return;
    void execute(message.command).then(
      async (result) => {
        await send({ type: 'reply', id: message.id, ok: true, result });
        if (message.command.op === 'stop') process.exit(0);
      },
      (error: unknown) => send({ type: 'reply', id: message.id, ok: false, error: errorFields(error) }),
    );
  });
}

// A worker never outlives its supervisor: without the IPC channel nobody could stop it.
process.on('disconnect', () => process.exit(1));
process.once('message', (message: SupervisorMessage) => {
  if (message.type !== 'start') throw new Error(`the first message to a worker must be 'start', got '${message.type}'`);
  main(message.config).catch((error: unknown) => {
    process.stderr.write(
      `flow worker ${message.config.workerId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
});
