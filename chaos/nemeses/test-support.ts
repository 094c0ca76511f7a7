import type { ClusterDescription, MemberState, StartedCluster } from '../../harness/cluster/index.ts';
import { HarnessError } from '../../harness/base/index.ts';

type ProcessState = Exclude<MemberState, 'unknown'>;

/**
 * An in-memory cluster for the fast tier: members with a process state, every action logged.
 * `probe` is what `memberState` says of a member that is not running: its real state, or what a
 * backend that only pings sees (`unknown`, or `dead` as an attached cluster without a `status`
 * template used to say of a paused member).
 */
export class FakeCluster implements StartedCluster {
  readonly calls: string[] = [];
  readonly states: Map<string, ProcessState>;
  readonly description: ClusterDescription;
  readonly processActions?: ReadonlySet<string>;
  private readonly probe: 'state' | 'unknown' | 'dead';

  constructor(
    members: readonly string[],
    options: {
      readonly toxiproxy?: string;
      readonly probe?: 'state' | 'unknown' | 'dead';
      /** Set: an attached cluster (the actions its file allows); undefined: one the harness started. */
      readonly processActions?: ReadonlySet<string>;
    } = {},
  ) {
    this.states = new Map(members.map((member) => [member, 'running']));
    this.probe = options.probe ?? 'state';
    if (options.processActions !== undefined) this.processActions = options.processActions;
    this.description = {
      backend: 'embedded',
      cluster: 'chaos',
      run_id: 'fake',
      dir: '',
      toxiproxy: options.toxiproxy ?? null,
      proxies_enabled: true,
      keepers: members.map((name, i) => ({ name, address: `127.0.0.1:${i + 1}` })),
      shards: [],
      backend_limits: [],
    };
  }

  get memberNames(): readonly string[] {
    return [...this.states.keys()];
  }

  async memberState(name: string): Promise<MemberState> {
    const state = this.state(name);
    return state === 'running' || this.probe === 'state' ? state : this.probe;
  }

  async kill(name: string): Promise<void> {
    this.act('kill', name, ['running', 'paused'], 'dead');
  }

  async stop(name: string): Promise<void> {
    this.act('stop', name, ['running', 'paused'], 'dead');
  }

  async pause(name: string): Promise<void> {
    this.act('pause', name, ['running', 'paused'], 'paused');
  }

  async resume(name: string): Promise<void> {
    this.act('resume', name, ['running', 'paused'], 'running');
  }

  async start(name: string): Promise<void> {
    this.act('start', name, ['dead'], 'running');
  }

  async restart(name: string): Promise<void> {
    await this.stop(name);
    await this.start(name);
  }

  async waitHealthy(name: string): Promise<void> {
    if (this.state(name) !== 'running')
      throw new HarnessError('WAIT_TIMEOUT', `${name} is ${this.state(name)}, not healthy`);
  }

  async memoryUsage(): Promise<undefined> {
    return undefined;
  }

  async down(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {}

  private state(name: string): ProcessState {
    const state = this.states.get(name);
    if (state === undefined) throw new HarnessError('MEMBER_UNKNOWN', `no member ${name}`);
    return state;
  }

  /** Like a real process: SIGCONT / SIGSTOP need a live process, a start needs a dead one. */
  private act(action: string, name: string, from: readonly ProcessState[], to: ProcessState): void {
    this.calls.push(`${action} ${name}`);
    const state = this.state(name);
    if (!from.includes(state)) throw new HarnessError('MEMBER_STATE', `cannot ${action} ${name}: it is ${state}`);
    this.states.set(name, to);
  }
}
