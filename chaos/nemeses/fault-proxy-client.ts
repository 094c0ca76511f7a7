import { HarnessError } from '../../harness/base/index.ts';

export type ToxicStream = 'upstream' | 'downstream';

export interface ToxicState {
  readonly name: string;
  readonly type: string;
  readonly stream: ToxicStream;
  readonly toxicity: number;
  readonly attributes: Readonly<Record<string, number>>;
}

export interface ProxyState {
  readonly name: string;
  readonly listen: string;
  readonly upstream: string;
  readonly enabled: boolean;
  readonly toxics: readonly ToxicState[];
}

/** One call may take this long, the answer's body included; then it is an error, never a hang. */
export const FAULT_PROXY_DEADLINE_MS = 5_000;

function hint(status: number): string {
  if (status === 404)
    return 'the proxy or toxic is not there: the cluster file names a proxy this Toxiproxy lacks, or someone removed it';
  if (status === 409)
    return 'a toxic of that name is already on the proxy: a killed run may have left it (`npm run chaos -- --backend external --cluster FILE --reap`)';
  if (status >= 500) return "the fault proxy failed; see its log (toxiproxy.log in a cluster's run directory)";
  return 'the fault proxy refused the request; check that it speaks the Toxiproxy 2.x API';
}

/** A status the fault proxy answered; a 4xx means it refused the request and changed nothing. */
export class FaultProxyStatusError extends HarnessError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('FAULT_PROXY_STATUS', message);
  }
}

/** The fault proxy refused the request (4xx): whatever it was asked to do did not happen. */
export const refusedByFaultProxy = (error: unknown): boolean =>
  error instanceof FaultProxyStatusError && error.status >= 400 && error.status < 500;

/**
 * The Toxiproxy REST API as the nemeses use it (our server and the real Toxiproxy alike,
 * `shared/spec/toxiproxy-compat.md`): every call has a deadline and its status is checked, so a
 * hung or failing fault proxy is an error naming the proxy, never a wait or a silent "done".
 */
export class FaultProxyClient {
  constructor(
    readonly url: string,
    private readonly deadlineMs = FAULT_PROXY_DEADLINE_MS,
  ) {}

  async proxies(): Promise<Readonly<Record<string, ProxyState>>> {
    return this.call('GET', '/proxies', 'listing the proxies');
  }

  async proxy(name: string): Promise<ProxyState> {
    return this.call('GET', `/proxies/${encodeURIComponent(name)}`, `reading proxy ${name}`);
  }

  async addToxic(proxy: string, toxic: ToxicState): Promise<ToxicState> {
    return this.call(
      'POST',
      `/proxies/${encodeURIComponent(proxy)}/toxics`,
      `adding toxic ${toxic.name} to proxy ${proxy}`,
      toxic,
    );
  }

  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.call(
      'DELETE',
      `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`,
      `removing toxic ${toxic} from proxy ${proxy}`,
    );
  }

  /** Only `enabled` is sent: the proxy keeps its listen and upstream addresses, and its sockets. */
  async setEnabled(proxy: string, enabled: boolean): Promise<ProxyState> {
    return this.call(
      'POST',
      `/proxies/${encodeURIComponent(proxy)}`,
      `${enabled ? 'enabling' : 'disabling'} proxy ${proxy}`,
      {
        enabled,
      },
    );
  }

  /** The Prometheus text of `/metrics` (the real Toxiproxy serves it only with `-proxy-metrics`: a 404 otherwise). */
  async metrics(): Promise<string> {
    return this.request('GET', '/metrics', 'reading its metrics');
  }

  private async call<T>(method: string, path: string, what: string, body?: unknown): Promise<T> {
    const text = await this.request(method, path, what, body);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new HarnessError(
        'FAULT_PROXY_ANSWER',
        `the fault proxy at ${this.url} answered ${what} with something that is not JSON (${text.slice(0, 80)}); check that it speaks the Toxiproxy 2.x API`,
      );
    }
  }

  /** One request's answer body, once its status was checked. */
  private async request(method: string, path: string, what: string, body?: unknown): Promise<string> {
    let status: number;
    let text: string;
    try {
      const response = await fetch(new URL(path, this.url), {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.deadlineMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if ((error as Error).name === 'TimeoutError')
        throw new HarnessError(
          'FAULT_PROXY_TIMEOUT',
          `the fault proxy API at ${this.url} did not answer ${what} within ${this.deadlineMs} ms; check that it is running and not paused`,
          { cause: error },
        );
      throw new HarnessError(
        'FAULT_PROXY_UNREACHABLE',
        `the fault proxy API at ${this.url} could not be reached for ${what} (${(error as Error).message}); check that it is running`,
        { cause: error },
      );
    }
    if (status < 200 || status > 299) {
      const reason = /"error"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 200);
      throw new FaultProxyStatusError(
        status,
        `the fault proxy at ${this.url} answered ${status} to ${what}${reason === '' ? '' : ` (${reason})`}: ${hint(status)}`,
      );
    }
    return text;
  }
}
