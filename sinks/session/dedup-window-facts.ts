import type { DedupSettingName, EndpointMetadata } from './endpoint-metadata.ts';
import { tableSettingsOf } from './table-settings.ts';

/** One dedup setting as it applies to the target: where it came from and on which endpoint. */
export interface EffectiveSetting {
  readonly value: number;
  /** `table`: the table's own SETTINGS override; `server`: `system.merge_tree_settings`. */
  readonly source: 'table' | 'server';
  readonly endpoint: string;
}

export interface DedupWindowFacts {
  readonly windowSeconds: EffectiveSetting;
  readonly asyncWindowSeconds: EffectiveSetting;
}

/** The table-level override when the table sets it, else the server's MergeTree default. */
export function effectiveSetting(metadata: EndpointMetadata, name: DedupSettingName): EffectiveSetting | undefined {
  const override = metadata.table === undefined ? undefined : tableSettingsOf(metadata.table.engine_full).get(name);
  const text = override ?? metadata.serverSettings[name];
  const value = text === undefined ? NaN : Number(text);
  if (!Number.isFinite(value)) return undefined;
  return { value, source: override === undefined ? 'server' : 'table', endpoint: metadata.endpoint };
}

/**
 * The windows the replay-horizon check compares: per setting, the smallest effective value over
 * every endpoint (a replay may land on any of them). A setting no endpoint reports counts as 0.
 */
export function dedupWindowFacts(endpoints: readonly EndpointMetadata[]): DedupWindowFacts {
  const smallest = (name: DedupSettingName): EffectiveSetting =>
    endpoints
      .map((metadata) => effectiveSetting(metadata, name))
      .reduce<EffectiveSetting | undefined>(
        (min, next) => (next !== undefined && (min === undefined || next.value < min.value) ? next : min),
        undefined,
      ) ?? {
      value: 0,
      source: 'server',
      endpoint: endpoints[0]?.endpoint ?? '',
    };
  return {
    windowSeconds: smallest('replicated_deduplication_window_seconds'),
    asyncWindowSeconds: smallest('replicated_deduplication_window_seconds_for_async_inserts'),
  };
}
