/**
 * The byte accounting of the at-most-once queue: a message holds its bytes from admission until
 * its send ended (in flight counts, so the limit bounds memory). The limit is dynamic
 * (`total_queue_bytes_limit`); lowering it never evicts what was admitted, it only refuses more.
 */
export class ByteBudget {
  private used = 0;

  constructor(private limit: number) {}

  get usedBytes(): number {
    return this.used;
  }

  get limitBytes(): number {
    return this.limit;
  }

  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** Admits when the bytes fit under the limit; a message larger than the limit never fits. */
  tryAdmit(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
