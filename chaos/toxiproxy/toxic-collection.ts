import { apiErrors } from './api-error.ts';
import type { Link } from './link.ts';
import type { Direction, Toxic } from './toxic.ts';
import type { ToxicAttributes } from './toxics/toxic-type.ts';

/** The toxics of one proxy, one chain per direction, and the live links they are applied to. */
export class ToxicCollection {
  private readonly chains: Record<Direction, Toxic[]> = { upstream: [], downstream: [] };
  private readonly links = new Set<Link>();

  chain(direction: Direction): readonly Toxic[] {
    return this.chains[direction];
  }

  /** Upstream chain first, then downstream, each in chain order (the real server's listing). */
  list(): Toxic[] {
    return [...this.chains.upstream, ...this.chains.downstream];
  }

  find(name: string): Toxic | undefined {
    return this.list().find((toxic) => toxic.name === name);
  }

  get(name: string): Toxic {
    const toxic = this.find(name);
    if (toxic === undefined) throw apiErrors.toxicNotFound();
    return toxic;
  }

  add(toxic: Toxic): void {
    this.chains[toxic.direction].push(toxic);
    for (const link of this.linksOf(toxic.direction)) link.addToxic(toxic);
  }

  update(toxic: Toxic, changes: { toxicity: number; attributes: ToxicAttributes }): void {
    toxic.toxicity = changes.toxicity;
    toxic.attributes = changes.attributes;
    for (const link of this.linksOf(toxic.direction)) link.updateToxic(toxic);
  }

  remove(toxic: Toxic): void {
    const chain = this.chains[toxic.direction];
    const index = chain.indexOf(toxic);
    if (index < 0) return;
    chain.splice(index, 1);
    for (const link of this.linksOf(toxic.direction)) link.removeToxic(toxic);
  }

  /** Removes every toxic, front to back in each direction, as the real server's reset does. */
  reset(): void {
    for (const direction of ['upstream', 'downstream'] as const) {
      for (let toxic = this.chains[direction][0]; toxic !== undefined; toxic = this.chains[direction][0])
        this.remove(toxic);
    }
  }

  attach(link: Link): void {
    this.links.add(link);
  }

  detach(link: Link): void {
    this.links.delete(link);
  }

  private linksOf(direction: Direction): Link[] {
    return [...this.links].filter((link) => link.direction === direction);
  }
}
