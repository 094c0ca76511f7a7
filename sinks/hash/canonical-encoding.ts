/**
 * An unambiguous byte encoding for hashing: every field is a 4-byte big-endian length followed by
 * its bytes, so no two different field sequences share an encoding (`["ab","c"]` vs `["a","bc"]`).
 */
export class CanonicalEncoder {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  bytes(field: Uint8Array): this {
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, field.byteLength, false);
    this.chunks.push(header, field);
    this.size += 4 + field.byteLength;
    return this;
  }

  text(field: string): this {
    return this.bytes(utf8.encode(field));
  }

  /** A list as its element count, then each element. */
  texts(fields: readonly string[]): this {
    this.count(fields.length);
    for (const field of fields) this.text(field);
    return this;
  }

  count(value: number): this {
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, value, false);
    this.chunks.push(header);
    this.size += 4;
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }
}

const utf8 = new TextEncoder();
