import { connect } from 'node:net';

/**
 * Whether a Kafka broker answers an ApiVersions request (v0, which every broker keeps) on
 * `port`: its client listeners accept requests only once it has joined the quorum and started.
 * A hand-built frame keeps the cluster room free of a Kafka client library.
 */
export function kafkaAnswers(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  const clientId = Buffer.from('ch-sink-chaos-health');
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
  body.writeInt16BE(18, 0); // ApiVersions
  body.writeInt16BE(0, 2);
  body.writeInt32BE(7, 4); // correlation id
  body.writeInt16BE(clientId.length, 8);
  clientId.copy(body, 10);
  const frame = Buffer.concat([Buffer.alloc(4), body]);
  frame.writeInt32BE(body.length, 0);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let received = Buffer.alloc(0);
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(frame));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // size, correlation id, error code: enough to know the broker served the request.
      if (received.length < 10) return;
      done(received.readInt32BE(4) === 7 && received.readInt16BE(8) === 0);
    });
  });
}

/** `kafkaAnswers` at an address as a description gives it, `host:port`. */
export function kafkaAnswersAt(address: string, timeoutMs?: number): Promise<boolean> {
  const at = address.lastIndexOf(':');
  return kafkaAnswers(Number(address.slice(at + 1)), address.slice(0, at), timeoutMs);
}
