import { toXml, type XmlElement } from './xml.ts';

/**
 * Server settings a sink cannot send (the seed's sinks have no parameter for them) but an operator
 * sets on the sink's user: quorum inserts, the dedup of dependent views, and how long an INSERT
 * retries its Keeper operations. Every cluster the
 * harness starts has one user per profile, so a scenario picks the profile by the `user` its
 * spec names, with no restart (the embedded engine reads its users only at start).
 */
export const SETTING_PROFILES = [
  'quorum_sequential',
  'quorum_parallel',
  'view_dedup_off',
  'keeper_retries_short',
] as const;
export type SettingProfile = (typeof SETTING_PROFILES)[number];

/**
 * How long a quorum INSERT waits for its replicas before the server answers
 * UNKNOWN_STATUS_OF_INSERT: shorter than every `write_timeout` a chaos spec draws (3-6 s), so the
 * sink hears the server's own answer, not its client's timeout.
 */
export const QUORUM_TIMEOUT_MS = 2000;

/** The user a profile's settings come with: `chaos_quorum_sequential`, ... */
export const profileUser = (profile: SettingProfile): string => `chaos_${profile}`;

/**
 * The settings of a profile on a cluster with `replicas` replicas per shard. The quorum is every
 * replica of the shard, so a fault on any sibling of the INSERT's replica keeps it from being met.
 */
export function profileSettings(profile: SettingProfile, replicas: number): Readonly<Record<string, string | number>> {
  switch (profile) {
    case 'quorum_sequential':
    case 'quorum_parallel':
      return {
        insert_quorum: replicas,
        insert_quorum_parallel: profile === 'quorum_parallel' ? 1 : 0,
        insert_quorum_timeout: QUORUM_TIMEOUT_MS,
      };
    case 'view_dedup_off':
      return { deduplicate_blocks_in_dependent_materialized_views: 0 };
    case 'keeper_retries_short':
      // 26.7's defaults (20 retries, backoff to 10 s) answer a commit whose Keeper session was lost
      // only after ~143 s (measured); with these, within a second, inside every sink's write_timeout.
      return { insert_keeper_max_retries: 2, insert_keeper_retry_max_backoff_ms: 200 };
  }
}

/** What a profile's settings read like in a report: `insert_quorum = 2, insert_quorum_parallel = 0, ...`. */
export function describeProfile(profile: SettingProfile, replicas: number): string {
  return Object.entries(profileSettings(profile, replicas))
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
}

const openUser = (profile: string): XmlElement => ({
  password: '',
  networks: { ip: '::/0' },
  profile,
  quota: 'default',
});

/**
 * The users file every node of a started cluster reads. `withDefault` also defines `default`
 * (passwordless, as clickhouse-local's built-in users give it) for a server that would otherwise
 * have none; the official image keeps its own users.xml and gets only the profile users
 * (`users.d/`). Nodes listen on loopback or a private container network only.
 */
export function usersConfig(replicas: number, options: { readonly withDefault: boolean }): string {
  const profiles: Record<string, XmlElement> = options.withDefault ? { default: {} } : {};
  const users: Record<string, XmlElement> = options.withDefault
    ? { default: { ...openUser('default'), access_management: 1 } }
    : {};
  for (const profile of SETTING_PROFILES) {
    profiles[profile] = { ...profileSettings(profile, replicas) };
    users[profileUser(profile)] = openUser(profile);
  }
  return toXml('clickhouse', {
    profiles,
    users,
    ...(options.withDefault ? { quotas: { default: {} } } : {}),
  });
}
