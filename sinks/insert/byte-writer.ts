/** A growing little-endian byte buffer, the primitives RowBinary is made of. */
export class ByteWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(initialSize = 4096) {
    this.buffer = Buffer.allocUnsafe(initialSize);
  }

  get size(): number {
    return this.length;
  }

  /** A copy of the bytes written so far. */
  finish(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }

  uint8(value: number): void {
    this.ensure(1);
    this.buffer.writeUInt8(value, this.length);
    this.length += 1;
  }

  /** An integer of 1, 2 or 4 bytes; `value` already range-checked. */
  smallInteger(value: number, bytes: 1 | 2 | 4, signed: boolean): void {
    this.ensure(bytes);
    if (signed) this.buffer.writeIntLE(value, this.length, bytes);
    else this.buffer.writeUIntLE(value, this.length, bytes);
    this.length += bytes;
  }

  /** An 8-byte integer; `value` already range-checked. */
  bigInteger(value: bigint, signed: boolean): void {
    this.ensure(8);
    if (signed) this.buffer.writeBigInt64LE(value, this.length);
    else this.buffer.writeBigUInt64LE(value, this.length);
    this.length += 8;
  }

  float32(value: number): void {
    this.ensure(4);
    this.buffer.writeFloatLE(value, this.length);
    this.length += 4;
  }

  float64(value: number): void {
    this.ensure(8);
    this.buffer.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  /** Unsigned LEB128, the length prefix of RowBinary strings. */
  varUInt(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.uint8((rest & 0x7f) | 0x80);
      rest = Math.floor(rest / 128);
    }
    this.uint8(rest);
  }

  /** UTF-8 text without allocating an intermediate array; `byteLength` from `Buffer.byteLength`. */
  utf8(value: string, byteLength: number): void {
    this.ensure(byteLength);
    this.length += this.buffer.write(value, this.length, byteLength, 'utf8');
  }

  bytes(value: Uint8Array): void {
    this.ensure(value.byteLength);
    this.buffer.set(value, this.length);
    this.length += value.byteLength;
  }

  zeros(count: number): void {
    this.ensure(count);
    this.buffer.fill(0, this.length, this.length + count);
    this.length += count;
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
