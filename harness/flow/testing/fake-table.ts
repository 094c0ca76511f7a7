import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** One INSERT as a fake table keeps it. */
export interface FakeInsert {
  readonly shard: string | null;
  readonly token?: string;
  readonly ids: readonly string[];
}

/**
 * The fast tier's stand-in for a replicated table: block dedup by token (a token seen before
 * inserts nothing), otherwise every insert lands. It proves the runtime's bookkeeping, never a
 * claim about ClickHouse.
 */
export interface FakeTable {
  insert(block: FakeInsert): 'inserted' | 'deduplicated';
  inserts(): FakeInsert[];
}

export class MemoryTable implements FakeTable {
  private readonly blocks: FakeInsert[] = [];

  insert(block: FakeInsert): 'inserted' | 'deduplicated' {
    if (
      block.token !== undefined &&
      this.blocks.some((seen) => seen.token === block.token && seen.shard === block.shard)
    )
      return 'deduplicated';
    this.blocks.push(block);
    return 'inserted';
  }

  inserts(): FakeInsert[] {
    return [...this.blocks];
  }
}

/** A table in a JSONL file, so it outlives the worker processes that write to it (one line = one block). */
export class FileTable implements FakeTable {
  constructor(readonly path: string) {}

  insert(block: FakeInsert): 'inserted' | 'deduplicated' {
    if (
      block.token !== undefined &&
      this.inserts().some((seen) => seen.token === block.token && seen.shard === block.shard)
    )
      return 'deduplicated';
    appendFileSync(this.path, `${JSON.stringify(block)}\n`);
    return 'inserted';
  }

  inserts(): FakeInsert[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as FakeInsert);
  }
}

/** How many times each message id landed. */
export function countIds(table: FakeTable): Map<string, number> {
  const counts = new Map<string, number>();
  for (const block of table.inserts()) for (const id of block.ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}
