import { apiErrors, asApiError, type ApiError } from './api-error.ts';
import { FaultProxy, type ProxyEnvironment } from './proxy.ts';
import { expectObject, field } from './toxic-json.ts';

/** A proxy as /populate, POST /proxies and the `config` option describe it. */
export interface ProxyDefinition {
  readonly name: string;
  readonly listen: string;
  readonly upstream: string;
  readonly enabled?: boolean;
}

export interface PopulateResult {
  readonly proxies: FaultProxy[];
  readonly error?: ApiError;
}

/** Reads one proxy definition from JSON; `position` names it in errors like the real server. */
export function parseProxyDefinition(raw: unknown, position?: number): Required<ProxyDefinition> {
  const body = expectObject(raw, 'proxy');
  const at = position === undefined ? '' : ` at proxy ${position}`;
  const definition = {
    name: field(body, 'name', 'string', ''),
    listen: field(body, 'listen', 'string', ''),
    upstream: field(body, 'upstream', 'string', ''),
    enabled: field(body, 'enabled', 'boolean', true),
  };
  if (definition.name === '') throw apiErrors.missingField(`name${at}`);
  if (definition.upstream === '') throw apiErrors.missingField(`upstream${at}`);
  return definition;
}

/** Every proxy of a server, by name. */
export class ProxyCollection {
  private readonly proxies = new Map<string, FaultProxy>();
  private readonly environment: ProxyEnvironment;

  constructor(environment: ProxyEnvironment) {
    this.environment = environment;
  }

  /** Sorted by name, as Go marshals its map. */
  list(): FaultProxy[] {
    return [...this.proxies.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get(name: string): FaultProxy {
    const proxy = this.proxies.get(name);
    if (proxy === undefined) throw apiErrors.proxyNotFound();
    return proxy;
  }

  /** 409 when the name exists; a proxy that fails to start is not added. */
  async add(definition: Required<ProxyDefinition>): Promise<FaultProxy> {
    if (this.proxies.has(definition.name)) throw apiErrors.proxyAlreadyExists();
    const proxy = this.create(definition);
    if (definition.enabled) await proxy.start();
    this.proxies.set(definition.name, proxy);
    return proxy;
  }

  async remove(name: string): Promise<void> {
    const proxy = this.get(name);
    this.proxies.delete(name);
    await proxy.stop();
  }

  /**
   * Validates every definition first (400, nothing applied), then applies them in order. A proxy
   * with the same listen and upstream is kept as it is (toxics included); otherwise the old one
   * is stopped and replaced. The first failure stops the run and reports what was applied.
   */
  async populate(raw: unknown): Promise<PopulateResult> {
    if (!Array.isArray(raw)) throw apiErrors.badRequestBody('cannot unmarshal non-array into proxy list');
    const definitions = raw.map((item, index) => parseProxyDefinition(item, index + 1));
    const applied: FaultProxy[] = [];
    for (const definition of definitions) {
      try {
        applied.push(await this.addOrReplace(definition));
      } catch (error) {
        return { proxies: applied, error: asApiError(error) };
      }
    }
    return { proxies: applied };
  }

  /** Re-enables every proxy and removes every toxic (which closes connections held by timeouts). */
  async reset(): Promise<void> {
    for (const proxy of this.list()) {
      await proxy.start();
      proxy.toxics.reset();
    }
  }

  /** Stops every proxy and forgets them. */
  async clear(): Promise<void> {
    const proxies = this.list();
    this.proxies.clear();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  }

  private async addOrReplace(definition: Required<ProxyDefinition>): Promise<FaultProxy> {
    const existing = this.proxies.get(definition.name);
    if (existing !== undefined) {
      if (existing.listen === definition.listen && existing.upstream === definition.upstream) return existing;
      await existing.stop();
    }
    const proxy = this.create(definition);
    if (definition.enabled) await proxy.start();
    this.proxies.set(definition.name, proxy);
    return proxy;
  }

  private create(definition: Required<ProxyDefinition>): FaultProxy {
    return new FaultProxy(definition.name, definition.listen, definition.upstream, this.environment);
  }
}
