import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ApiError, apiErrors, asApiError } from './api-error.ts';
import { proxyMetricsText } from './metrics.ts';
import { parseProxyDefinition, type ProxyCollection } from './proxy-collection.ts';
import type { FaultProxy } from './proxy.ts';
import { toxicJson } from './toxic.ts';
import { expectObject, field, parseNewToxic, parseToxicUpdate } from './toxic-json.ts';

export const TOXIPROXY_VERSION = '2.12.0';

interface Reply {
  readonly status: number;
  readonly body?: unknown;
  /** A text body of another type than JSON. */
  readonly contentType?: string;
}

type Handler = (proxies: ProxyCollection, request: ApiRequest, logger: Logger) => Promise<Reply>;

interface ApiRequest {
  readonly params: readonly string[];
  body(): Promise<unknown>;
}

const proxyJson = (proxy: FaultProxy): Record<string, unknown> => proxy.json();

/** Served only with proxy metrics on, as the real server serves `/metrics` only with a metrics flag. */
const metricsRoute: { pattern: RegExp; methods: Record<string, Handler> } = {
  pattern: /^\/metrics$/,
  methods: {
    GET: async (proxies) => ({
      status: 200,
      body: proxyMetricsText(proxies.list()),
      contentType: 'text/plain; version=0.0.4; charset=utf-8',
    }),
  },
};

/** The routes of Toxiproxy 2.12's API; {proxy} and {toxic} are whole path segments. */
const routes: ReadonlyArray<{ pattern: RegExp; methods: Record<string, Handler> }> = [
  {
    pattern: /^\/version$/,
    methods: { GET: async () => ({ status: 200, body: `{"version": "${TOXIPROXY_VERSION}"}\n` }) },
  },
  {
    pattern: /^\/reset$/,
    methods: {
      POST: async (proxies) => {
        await proxies.reset();
        return { status: 204 };
      },
    },
  },
  {
    pattern: /^\/proxies$/,
    methods: {
      GET: async (proxies) => ({
        status: 200,
        body: Object.fromEntries(proxies.list().map((p) => [p.name, proxyJson(p)])),
      }),
      POST: async (proxies, request) => {
        const proxy = await proxies.add(parseProxyDefinition(await request.body()));
        return { status: 201, body: proxyJson(proxy) };
      },
    },
  },
  {
    pattern: /^\/populate$/,
    methods: {
      POST: async (proxies, request) => {
        // Every failure of /populate carries a `proxies` field, null when nothing was applied.
        const result = await request
          .body()
          .then((body) => proxies.populate(body))
          .catch((error: unknown) => ({ proxies: [], error: asApiError(error) }));
        const listed = result.proxies.map(proxyJson);
        if (result.error === undefined) return { status: 201, body: { proxies: listed } };
        const { message, status } = result.error;
        return { status, body: { error: message, status, proxies: listed.length > 0 ? listed : null } };
      },
    },
  },
  {
    pattern: /^\/proxies\/([^/]+)$/,
    methods: {
      GET: async (proxies, { params }) => ({ status: 200, body: proxyJson(proxies.get(params[0] ?? '')) }),
      POST: updateProxy,
      PATCH: updateProxy,
      DELETE: async (proxies, { params }) => {
        await proxies.remove(params[0] ?? '');
        return { status: 204 };
      },
    },
  },
  {
    pattern: /^\/proxies\/([^/]+)\/toxics$/,
    methods: {
      GET: async (proxies, { params }) => ({
        status: 200,
        body: proxies
          .get(params[0] ?? '')
          .toxics.list()
          .map(toxicJson),
      }),
      POST: async (proxies, request, logger) => {
        const { toxics } = proxies.get(request.params[0] ?? '');
        const toxic = parseNewToxic(await request.body(), (name) => toxics.find(name) !== undefined);
        toxics.add(toxic);
        logger.info({ proxy: request.params[0], toxic: toxicJson(toxic) }, 'toxic added');
        return { status: 200, body: toxicJson(toxic) };
      },
    },
  },
  {
    pattern: /^\/proxies\/([^/]+)\/toxics\/([^/]+)$/,
    methods: {
      GET: async (proxies, { params }) => ({
        status: 200,
        body: toxicJson(proxies.get(params[0] ?? '').toxics.get(params[1] ?? '')),
      }),
      POST: updateToxic,
      PATCH: updateToxic,
      DELETE: async (proxies, { params }, logger) => {
        const { toxics } = proxies.get(params[0] ?? '');
        toxics.remove(toxics.get(params[1] ?? ''));
        logger.info({ proxy: params[0], toxic: params[1] }, 'toxic removed');
        return { status: 204 };
      },
    },
  },
];

async function updateProxy(proxies: ProxyCollection, request: ApiRequest): Promise<Reply> {
  const proxy = proxies.get(request.params[0] ?? '');
  const body = expectObject(await request.body(), 'proxy');
  await proxy.update({
    listen: field(body, 'listen', 'string', proxy.listen),
    upstream: field(body, 'upstream', 'string', proxy.upstream),
    enabled: field(body, 'enabled', 'boolean', proxy.enabled),
  });
  return { status: 200, body: proxyJson(proxy) };
}

async function updateToxic(proxies: ProxyCollection, request: ApiRequest, logger: Logger): Promise<Reply> {
  const { toxics } = proxies.get(request.params[0] ?? '');
  const toxic = toxics.get(request.params[1] ?? '');
  toxics.update(toxic, parseToxicUpdate(await request.body(), toxic));
  logger.info({ proxy: request.params[0], toxic: toxicJson(toxic) }, 'toxic updated');
  return { status: 200, body: toxicJson(toxic) };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') throw apiErrors.badRequestBody('EOF');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw apiErrors.badRequestBody((error as Error).message);
  }
}

function send(response: ServerResponse, reply: Reply): void {
  if (reply.body === undefined) {
    response.writeHead(reply.status).end();
    return;
  }
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  response.writeHead(reply.status, { 'Content-Type': reply.contentType ?? 'application/json' }).end(text);
}

function errorReply(error: ApiError): Reply {
  return { status: error.status, body: `${JSON.stringify({ error: error.message, status: error.status })}\n` };
}

export interface ApiHandler {
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Waits for the requests in flight, refuses later ones (503) and stops every proxy. */
  shutdown(): Promise<void>;
}

/**
 * The request handler of the API server. Requests run one at a time, like the real server's
 * collection lock, so a change is complete (listeners bound, sockets closed) before the next.
 */
export function createApiHandler(
  proxies: ProxyCollection,
  logger: Logger,
  options: { readonly proxyMetrics?: boolean } = {},
): ApiHandler {
  const served = options.proxyMetrics === true ? [...routes, metricsRoute] : routes;
  let queue: Promise<void> = Promise.resolve();
  let requestId = 0;
  let stopped = false;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (stopped) throw new ApiError('server is stopping', 503);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if ((request.headers['user-agent'] ?? '').startsWith('Mozilla/')) throw apiErrors.browserForbidden();
    for (const route of served) {
      const match = route.pattern.exec(path);
      if (match === null) continue;
      const handler = route.methods[request.method ?? 'GET'];
      if (handler === undefined) throw apiErrors.methodNotAllowed();
      const params = match.slice(1).map((segment) => decodeURIComponent(segment));
      const reply = await handler(proxies, { params, body: () => readJson(request) }, logger);
      send(response, reply);
      return;
    }
    throw apiErrors.notFound();
  };

  const enqueue = (task: () => Promise<void>): Promise<void> => {
    queue = queue.then(task);
    return queue;
  };

  const accept = (request: IncomingMessage, response: ServerResponse): void => {
    requestId += 1;
    response.setHeader('X-Toxiproxy-Request-Id', String(requestId));
    void enqueue(async () => {
      try {
        await handle(request, response);
      } catch (error) {
        const failure = asApiError(error);
        if (failure.status >= 500)
          logger.info({ err: error, method: request.method, url: request.url }, 'api request failed');
        send(response, errorReply(failure));
      }
      logger.debug({ method: request.method, url: request.url, status: response.statusCode }, 'api request');
    });
  };

  return {
    handle: accept,
    shutdown: () =>
      enqueue(async () => {
        stopped = true;
        await proxies.clear();
      }),
  };
}
