import { closeSync, fdatasyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../../base/index.ts';
import type { FlowEvent, Stamped } from './history-events.ts';

/**
 * Appends one writer's events to `<dir>/<writer>.jsonl`. Each process (the supervisor, every
 * worker launch) is its own writer with its own file, so concurrent processes never interleave
 * bytes; the reader merges the files. Each event is one `write(2)` of one whole line on an
 * O_APPEND descriptor: once `append` returns the line is in the kernel and survives a SIGKILL of
 * this process; `sync()` (used before a planned crash and at close) also survives the machine.
 */
export class HistoryWriter {
  private seq = 0;
  private lastAt = 0;
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    readonly writer: string,
  ) {
    this.fd = openSync(path, 'a');
  }

  static open(dir: string, writer: string): HistoryWriter {
    if (!/^[A-Za-z0-9_.-]+$/.test(writer))
      throw new HarnessError(
        'FLOW_HISTORY_WRITER',
        `History writer name '${writer}' must be a plain file name ([A-Za-z0-9_.-])`,
      );
    mkdirSync(dir, { recursive: true });
    return new HistoryWriter(join(dir, `${writer}.jsonl`), writer);
  }

  append<E extends FlowEvent>(event: E): Stamped<E> {
    if (this.fd === undefined)
      throw new HarnessError(
        'FLOW_HISTORY_CLOSED',
        `History writer '${this.writer}' is closed; event '${event.type}' was not recorded`,
      );
    // Wall clock with sub-millisecond resolution, never going backwards within one writer.
    const at = Math.max(performance.timeOrigin + performance.now(), this.lastAt);
    this.lastAt = at;
    this.seq += 1;
    const stamped: Stamped<E> = { ...event, at, writer: this.writer, pid: process.pid, seq: this.seq };
    writeSync(this.fd, `${JSON.stringify(stamped)}\n`);
    return stamped;
  }

  sync(): void {
    if (this.fd !== undefined) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === undefined) return;
    this.sync();
    closeSync(this.fd);
    this.fd = undefined;
  }
}
