import { SINK_CLASS_NAMES, type SinkClassName } from './domain/sink-class-name.ts';
import { SINK_CLASSES, type SinkClassDescriptor } from './sink-classes.ts';

export interface RegisteredSinkClass<Impl> {
  readonly descriptor: SinkClassDescriptor;
  readonly implementation: Impl;
}

/**
 * The sink classes a binary knows. Specs naming a class outside it are refused before any sink
 * state is read (the seed's rollback story: a binary without the sharded class refuses the
 * sharded spec). `descriptorsOnly()` serves spec validation; `classes/create-sink.ts` registers the
 * four constructors as `implementation` (`SINK_IMPLEMENTATIONS`).
 */
export class SinkRegistry<Impl = undefined> {
  private readonly entries: ReadonlyMap<SinkClassName, RegisteredSinkClass<Impl>>;

  private constructor(entries: Iterable<RegisteredSinkClass<Impl>>) {
    this.entries = new Map([...entries].map((entry) => [entry.descriptor.name, entry]));
  }

  static of<Impl>(entries: Iterable<RegisteredSinkClass<Impl>>): SinkRegistry<Impl> {
    return new SinkRegistry(entries);
  }

  /** Descriptors without implementations, for the given classes (all four by default). */
  static descriptorsOnly(names: readonly SinkClassName[] = SINK_CLASS_NAMES): SinkRegistry<undefined> {
    return new SinkRegistry(names.map((name) => ({ descriptor: SINK_CLASSES[name], implementation: undefined })));
  }

  get names(): SinkClassName[] {
    return SINK_CLASS_NAMES.filter((name) => this.entries.has(name));
  }

  has(name: SinkClassName): boolean {
    return this.entries.has(name);
  }

  get(name: SinkClassName): RegisteredSinkClass<Impl> | undefined {
    return this.entries.get(name);
  }

  /** The same registry lacking some classes, e.g. to model an older binary. */
  without(...names: SinkClassName[]): SinkRegistry<Impl> {
    return new SinkRegistry([...this.entries.values()].filter((entry) => !names.includes(entry.descriptor.name)));
  }
}
