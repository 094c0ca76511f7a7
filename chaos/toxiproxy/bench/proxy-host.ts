import { startToxiproxyServer } from '../server.ts';

/**
 * The proxy under benchmark, in a process of its own (as a real toxiproxy would be), driven
 * over IPC: it reports its URL, answers memory probes after a forced GC and page-fault probes, and stops on request.
 */
const server = await startToxiproxyServer({ port: 0, seed: 1 });
const send = (message: unknown): void => {
  process.send?.(message);
};

process.on('message', (message: { command: string }) => {
  if (message.command === 'memory') {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    send({ memory: { rss, heapUsed } });
  } else if (message.command === 'faults') {
    send({ faults: process.resourceUsage().minorPageFault });
  } else if (message.command === 'stop') {
    void server.stop().then(() => process.exit(0));
  }
});
// Without the IPC channel nobody could stop this process: the benchmark is gone.
process.on('disconnect', () => process.exit(1));
send({ url: server.url });
