import type { Random } from './random.ts';
import { Stage, type StageContext, type StageOutput } from './stage.ts';
import type { Direction, Toxic } from './toxic.ts';

/** Bytes a link may hold inside its toxics before it stops reading its source. */
const HELD_LIMIT = 8 * 1024 * 1024;

export interface LinkOptions {
  readonly direction: Direction;
  readonly toxics: readonly Toxic[];
  readonly toxicity: Random;
  readonly shaping: Random;
  /** Writes to the destination socket. */
  write(data: Buffer): void;
  /** The stream ended: close the destination socket. */
  end(): void;
  /** Called when the link can take more input after having been full. */
  relieved(): void;
}

/**
 * One direction of one connection: source -> hidden noop -> toxics in chain order ->
 * destination. Toxics added, updated or removed through the API are spliced into the running
 * chain the way Toxiproxy does it: the stage before the change is paused, rewired and
 * restarted (which redraws its toxicity), and no byte is lost or reordered on the way.
 */
export class Link {
  readonly direction: Direction;
  private readonly stages: Stage[];
  private readonly context: StageContext;
  private readonly options: LinkOptions;
  private readonly sink: StageOutput;
  private held = 0;
  private full = false;
  private disposed = false;

  constructor(options: LinkOptions) {
    this.options = options;
    this.direction = options.direction;
    this.context = {
      toxicity: options.toxicity,
      shaping: options.shaping,
      dropped: (bytes) => this.release(bytes),
    };
    this.sink = {
      push: (data) => {
        this.release(data.length);
        if (!this.disposed) options.write(data);
      },
      end: () => {
        if (!this.disposed) options.end();
      },
    };
    this.stages = [new Stage(undefined, this.sink, this.context)];
    for (const toxic of options.toxics) this.append(toxic);
    for (const stage of this.stages) stage.start();
  }

  /** True while the toxics hold more than the limit; the caller pauses the source. */
  get isFull(): boolean {
    return this.full;
  }

  input(data: Buffer): void {
    this.held += data.length;
    if (this.held > HELD_LIMIT) this.full = true;
    (this.stages[0] as Stage).push(data);
  }

  end(): void {
    (this.stages[0] as Stage).end();
  }

  addToxic(toxic: Toxic): void {
    if (this.disposed) return;
    const previous = this.stages[this.stages.length - 1] as Stage;
    // Paused before rewiring, like Toxiproxy: what it held goes out undelayed, ahead of the new toxic.
    const paused = previous.interrupt();
    const stage = this.append(toxic);
    if (paused) previous.start();
    stage.start();
  }

  updateToxic(toxic: Toxic): void {
    const stage = this.find(toxic);
    if (stage?.interrupt()) stage.start();
  }

  removeToxic(toxic: Toxic): void {
    const index = this.stages.findIndex((stage) => stage.toxic === toxic);
    const stage = this.stages[index];
    const previous = this.stages[index - 1];
    if (stage === undefined || previous === undefined || !stage.interrupt()) return;
    if (toxic.type.closesOnRemove) {
      stage.close();
      return;
    }
    const paused = previous.interrupt();
    // What the paused stage still held went into `stage`; pass it all on, in order.
    stage.flushTo(stage.output);
    previous.output = stage.output;
    this.stages.splice(index, 1);
    stage.dispose();
    if (paused) previous.start();
  }

  /** The destination is gone: stop all toxics and forget held data. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const stage of this.stages) stage.dispose();
    this.held = 0;
  }

  private append(toxic: Toxic): Stage {
    const last = this.stages[this.stages.length - 1] as Stage;
    const stage = new Stage(toxic, last.output, this.context);
    last.output = stage;
    this.stages.push(stage);
    return stage;
  }

  private find(toxic: Toxic): Stage | undefined {
    return this.stages.find((stage) => stage.toxic === toxic);
  }

  private release(bytes: number): void {
    this.held -= bytes;
    if (this.full && this.held <= HELD_LIMIT / 2) {
      this.full = false;
      this.options.relieved();
    }
  }
}
