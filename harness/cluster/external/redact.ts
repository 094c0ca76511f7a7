import type { ClusterDescription } from '../description.ts';
import { CREDENTIAL_PARAMETER, type ExternalClusterFile } from './cluster-file.ts';

/** A description as a report keeps it: which process actions the cluster file gives, not their commands. */
export interface RedactedDescription extends ClusterDescription {
  readonly process_actions?: readonly string[];
}

/**
 * The one form of a cluster description that may leave the process (`check-input.json`,
 * `--keep-cluster`, logs): the `process_commands` text is replaced by the list of actions it
 * gives (a command can hold hosts, keys or tokens), and every URL loses any login
 * (`user:password@`, `?password=`). A cluster file with a login in a URL is refused anyway; this
 * holds for any description, whatever produced it.
 */
export function redactDescription(description: ClusterDescription | ExternalClusterFile): RedactedDescription {
  const { process_commands: commands, ...rest } = description as ExternalClusterFile;
  return {
    ...rest,
    ...(typeof rest.toxiproxy === 'string' ? { toxiproxy: redactUrl(rest.toxiproxy) } : {}),
    shards: rest.shards.map((shard) => ({
      ...shard,
      replicas: shard.replicas.map((replica) => ({
        ...replica,
        http: redactUrl(replica.http),
        direct_http: redactUrl(replica.direct_http),
      })),
    })),
    ...(commands === undefined ? {} : { process_actions: Object.keys(commands) }),
  };
}

/** The URL without a login; untouched (not even normalised) when it has none. */
function redactUrl(text: string): string {
  if (!URL.canParse(text)) return '(not a URL)';
  const url = new URL(text);
  const parameters = [...url.searchParams.keys()].filter((key) => CREDENTIAL_PARAMETER.test(key));
  if (url.username === '' && url.password === '' && parameters.length === 0) return text;
  url.username = '';
  url.password = '';
  for (const parameter of parameters) url.searchParams.delete(parameter);
  return url.toString();
}
