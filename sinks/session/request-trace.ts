import http from 'node:http';
import https from 'node:https';
import { TLSSocket } from 'node:tls';
import type { TlsSettings } from './tls-settings.ts';

/** What one INSERT request got to on the wire; the outcome classification reads it. */
export interface RequestTrace {
  /** TCP connected (and, with TLS, the handshake done): request bytes may reach the server from now on. */
  connected: boolean;
  /** The whole body was handed to the socket (the request's `finish`) before any response or error. */
  bodySent: boolean;
  /** The socket's `bytesWritten` at that moment: request line, headers and body. */
  bytesSent?: number;
  /** The HTTP status of the response, if one arrived. */
  responseStatus?: number;
  /** `X-ClickHouse-Exception-Code`: the server itself reports the query failed. */
  exceptionCode?: string;
}

export interface TraceHandle {
  readonly trace: RequestTrace;
  release(): void;
}

/**
 * Follows the requests of one client by `query_id`. @clickhouse/client hides its
 * `http.ClientRequest`, but every request passes through the agent, so the agent hands each one
 * here; the query id in its URL picks the INSERT attempt that is watching it. `finish` on a
 * ClientRequest fires once the last body chunk's socket write completed (buffered bytes of a
 * not-yet-connected socket do not count), which is the truthful "body sent" moment.
 */
export class RequestTracer {
  private readonly watching = new Map<
    string,
    { trace: RequestTrace; onBodySent: (bytes: number) => void; active: boolean }
  >();

  watch(queryId: string, onBodySent: (bytes: number) => void): TraceHandle {
    const watcher = { trace: { connected: false, bodySent: false }, onBodySent, active: true };
    this.watching.set(queryId, watcher);
    return {
      trace: watcher.trace,
      release: () => {
        // Events of the request after the attempt ended (a late `finish`) must not reach the observer.
        watcher.active = false;
        this.watching.delete(queryId);
      },
    };
  }

  attach(request: http.ClientRequest): void {
    const query = request.path.split('?')[1];
    const queryId = query === undefined ? null : new URLSearchParams(query).get('query_id');
    const watcher = queryId === null ? undefined : this.watching.get(queryId);
    if (!watcher) return;
    const { trace } = watcher;
    const markConnected = () => {
      trace.connected = true;
    };
    request.once('socket', (socket) => {
      // Sockets are never reused (keep-alive is off), so the socket is still connecting here.
      if (socket instanceof TLSSocket) socket.once('secureConnect', markConnected);
      else if (socket.connecting) socket.once('connect', markConnected);
      else markConnected();
    });
    request.once('response', (response) => {
      trace.responseStatus = response.statusCode;
      const code = response.headers['x-clickhouse-exception-code'];
      if (typeof code === 'string') trace.exceptionCode = code;
    });
    request.once('finish', () => {
      if (!watcher.active || trace.responseStatus !== undefined || !trace.connected) return;
      trace.bodySent = true;
      trace.bytesSent = request.socket?.bytesWritten ?? 0;
      watcher.onBodySent(trace.bytesSent);
    });
  }
}

interface AgentInternals {
  addRequest(request: http.ClientRequest, options: unknown): void;
}

/**
 * The agent of one endpoint client: keep-alive off, TLS per the spec, every request shown to the
 * tracer. `addRequest` is how Node's http module hands a request to its agent (used by agent-base
 * and the proxy agents); @types/node does not declare it.
 */
export function tracingAgent(tls: TlsSettings | undefined, tracer: RequestTracer): http.Agent {
  const agent = tls
    ? new https.Agent({
        keepAlive: false,
        ...(tls.ca ? { ca: [...tls.ca] } : {}),
        rejectUnauthorized: tls.rejectUnauthorized,
      })
    : new http.Agent({ keepAlive: false });
  const internals = agent as unknown as AgentInternals;
  const addRequest = internals.addRequest.bind(agent);
  internals.addRequest = (request, options) => {
    tracer.attach(request);
    addRequest(request, options);
  };
  return agent;
}
