import {
  type JobReport,
  type ReadFigures,
  type ScenarioReport,
  classConfigurations,
  EXIT_STATUSES,
  resultExitStatus,
} from '../results/index.ts';
import { classPath, isJudgedClassName, STAGED_LOADER_CLASS } from '../../properties/base/index.ts';
import { configurationRows } from './configuration-rows.ts';
import {
  dedupStatement,
  faultProxyText,
  RECOVERY_CAPTION,
  RECOVERY_HEADER,
  recoveryCells,
  watchedClasses,
  unknownSplit,
} from './figures.ts';
import { codeSpan, fencedBlock, tableCell } from './markdown-text.ts';

const ICON: Readonly<Record<string, string>> = {
  pass: '✅ pass',
  violation: '❌ violation',
  inconclusive: '⚠️ inconclusive',
  interrupted: '⏹️ interrupted',
  'infra-error': '🛠️ infra-error',
};

function scenarioDetail(scenario: ScenarioReport): string[] {
  if (scenario.verdict === 'pass') return [];
  const lines = [
    `#### ${tableCell(scenario.sinkClass)} / ${tableCell(scenario.name)}: ${ICON[scenario.verdict]}`,
    '',
    ...fencedBlock([scenario.replayCommand], 'sh'),
  ];
  if (scenario.scheduleReplayCommand !== undefined)
    lines.push(
      '',
      'The same input, even after the generators changed:',
      '',
      ...fencedBlock([scenario.scheduleReplayCommand], 'sh'),
    );
  if (scenario.commands.length > 0) lines.push('', 'Commands that ran:', '', ...fencedBlock(scenario.commands));
  const c = scenario.tally.counts;
  lines.push(
    '',
    `attempted ${c.attempted} · acknowledged ${c.acknowledged} · lost ${c.lost} · duplicated ${c.duplicated} · unexpected ${c.unexpected} · recovered ${c.recovered} · held back by a give-up ${c.gaveUp}`,
  );
  // Anomaly examples and notes can quote the server: each a code span, so none can become Markdown.
  for (const anomaly of scenario.anomalies)
    lines.push(`- **${codeSpan(anomaly.category)}** (${anomaly.count}): ${anomaly.examples.map(codeSpan).join(', ')}`);
  for (const note of scenario.notes) lines.push(`- ${codeSpan(note)}`);
  return [...lines, ''];
}

/**
 * Per class, each configuration its runs wrote under (table engine and block dedup, async_insert):
 * the guarantee owed there — the seed degrades exactly-once on a table without block dedup — and
 * whether it held.
 */
function configurationMatrix(run: JobReport): string[] {
  const rows = Object.entries(run.classes).flatMap(([name, result]) =>
    configurationRows(classConfigurations(result.scenarios), result.guarantee, run.backendLimits).map(
      (cells) => `| ${tableCell(name)} | ${cells.map(tableCell).join(' | ')} |`,
    ),
  );
  if (rows.length === 0) return [];
  return [
    '',
    '### Configurations',
    '',
    'Every checked run by the configuration it wrote under, with the guarantee the seed owes there:',
    '',
    '| class | configuration | guarantee owed | runs | guarantee | lost | duplicated | dedup hits |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

/** Which spec boundaries each scenario's runs wrote under (the ones it declares must all be here for a pass). */
function boundaryTable(run: JobReport): string[] {
  const rows = Object.entries(run.classes).flatMap(([name, result]) =>
    result.scenarios.flatMap((s) => {
      const seen = Object.entries(s.tally.boundaries ?? {}).map(([boundary, writes]) => `${boundary} (${writes})`);
      return seen.length === 0
        ? []
        : [`| ${tableCell(name)} | ${tableCell(s.name)} | ${tableCell(seen.join(' · '))} |`];
    }),
  );
  if (rows.length === 0) return [];
  return [
    '',
    '### Spec boundaries run',
    '',
    'Each host form, limit edge and strategy mode a spec in force was on while the sink wrote (its writes under it):',
    '',
    '| class | scenario | boundaries (writes) |',
    '|---|---|---|',
    ...rows,
  ];
}

/** The kind of fault a type is, for the side-by-side table: where in the path it acts. */
const FAULT_FAMILY: Readonly<Record<string, string>> = {
  latency: 'link',
  bandwidth: 'link',
  slicer: 'link',
  timeout: 'link',
  reset_peer: 'link',
  limit_data: 'link',
  proxy_down: 'link',
  interserver_cut: 'link',
  replica_kill: 'replica',
  replica_pause: 'replica',
  keeper_pause: 'Keeper',
  keeper_kill: 'Keeper',
  keeper_quorum_loss: 'Keeper',
  keeper_link_cut: 'Keeper',
  broker_kill: 'broker',
  broker_pause: 'broker',
  table_detached: 'table detached',
  sink_crash: 'writer crash',
};

/**
 * Which path, which guarantee: every class of the run side by side, the sinks and ClickHouse's
 * Kafka engine, with what each lost, duplicated and recovered and the kinds of fault it met.
 */
function pathTable(run: JobReport): string[] {
  const rows = Object.entries(run.classes).map(([name, result]) => {
    const families = new Set(Object.keys(result.tally.faults).map((type) => FAULT_FAMILY[type] ?? 'server error'));
    const c = result.tally.counts;
    const path = isJudgedClassName(name) ? classPath(name) : name;
    return `| ${path} | ${tableCell(name)} | ${result.guarantee} | ${ICON[result.verdict]} | ${c.lost} | ${c.duplicated} | ${c.recovered} | ${[...families].sort().join(', ') || '—'} |`;
  });
  return [
    '',
    '### Which path, which guarantee',
    '',
    '| path | class | owed | verdict | lost | duplicated | recovered | faults met (kind) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

/**
 * What readers saw while the staged loader published: per scenario and operation, the reads,
 * those that saw a load in part, and the cross-table window (how long a multi-table load showed
 * in some of its tables and not the others).
 */
function readsTable(run: JobReport): string[] {
  const rows = Object.entries(run.classes).flatMap(([name, result]) =>
    (name === STAGED_LOADER_CLASS ? result.scenarios : []).flatMap((s) =>
      (s.reads ?? []).map(
        (r) =>
          `| ${tableCell(name)} | ${tableCell(s.name)} | ${r.operation} | ${r.reads} (${r.failedReads}) | ${r.fractured} | ${r.underRepair === undefined || r.underRepair.reads === 0 ? '—' : `${r.underRepair.reads} (${r.underRepair.fractured})`} | ${r.loads} | ${r.splitReads} | ${r.windowMs === null ? '—' : `${r.windowMs.p50} / ${r.windowMs.p95} / ${r.windowMs.max}`} |`,
      ),
    ),
  );
  if (rows.length === 0) return [];
  return [
    '',
    '### What readers saw',
    '',
    'Readers queried every production table in one statement, on every replica, through the client proxies, while the loads were published. A read that saw part of a load is a `fractured-read` (a violation); a multi-table load seen in some of its tables and not the others is the switch window seed 002 promises short, measured per load from the first such read to the last. A replica under repair (its Keeper metadata lost, then `SYSTEM RESTORE REPLICA`) or joining (a new replica made mid-run) is out of service until it synced: ClickHouse fetches its parts one by one, so what it shows is counted apart, not judged, and not part of the window:',
    '',
    '| class | scenario | operation | reads (failed) | fractured | of a replica under repair (fractured) | multi-table loads | split reads | window p50 / p95 / max ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

/**
 * What readers saw of the sinks' tables while they wrote and healed, per class and way of
 * reading, over every scenario: measured, not judged (the sinks promise readers nothing).
 */
function sinkReadsTable(run: JobReport): string[] {
  const rows = Object.entries(run.classes).flatMap(([name, result]) => {
    if (name === STAGED_LOADER_CLASS) return [];
    const byRead = new Map<string, ReadFigures[]>();
    for (const figures of result.scenarios.flatMap((s) => s.reads ?? []))
      byRead.set(figures.operation, [...(byRead.get(figures.operation) ?? []), figures]);
    return [...byRead].map(([read, all]) => {
      const sum = (pick: (figures: ReadFigures) => number) => all.reduce((total, figures) => total + pick(figures), 0);
      const widest = Math.max(-1, ...all.map((figures) => figures.windowMs?.max ?? -1));
      const stale = read === 'through _dist' ? String(sum((f) => f.stale ?? 0)) : '—';
      return `| ${tableCell(name)} | ${read} | ${sum((f) => f.reads)} (${sum((f) => f.failedReads)}) | ${sum((f) => f.fractured)} | ${stale} | ${sum((f) => f.wentBack ?? 0)} | ${sum((f) => f.loads)} | ${sum((f) => f.splitReads)} | ${widest < 0 ? '—' : widest} |`;
    });
  });
  if (rows.length === 0) return [];
  return [
    '',
    "### What a reader saw of the sinks' tables",
    '',
    "While each run wrote and healed, a reader queried the run's table a few times a second, turn by turn one replica's own table and `_dist` through a replica, directly (around the fault proxy, so a fault's evidence stays the sink's bytes). Measured, not judged: the sinks promise readers nothing. One INSERT is one block on a replica, so a read that saw part of one should not happen; a batch the sink split over shards is committed shard by shard, so `_dist` shows it on some shards first (split reads), for the window given. Read-your-writes (a `_dist` read missed an INSERT the sink had acknowledged before the read began) and monotonic reads (a read lacked a row an earlier one saw) are not promised by default settings, so the counts say how often they did not hold; under the quorum scenarios with a sequential quorum the reader reads with `select_sequential_consistency = 1`, where ClickHouse promises both (the scenario's own line in `report.html` says so):",
    '',
    '| class | read | reads (failed) | saw part of one INSERT | missed an acknowledged INSERT | lacked a row seen before | batches over several shards | split reads | widest split window ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Where the job's wall time went: per class, its scenarios' traffic (the schedule with its
 * faults), heal (the faults undone and the sinks drained), check (the tables read back and
 * judged), and the rest of its scenarios (tables made and dropped, workers started, shrinking);
 * then the cluster starts and what lies between the pairs.
 */
function timeTable(run: JobReport): string[] {
  const rows = Object.entries(run.classes).map(([name, result]) => {
    const sum = (pick: (scenario: ScenarioReport) => number) =>
      result.scenarios.reduce((total, scenario) => total + pick(scenario), 0);
    const total = sum((scenario) => scenario.durationMs);
    const traffic = sum((scenario) => scenario.phases.trafficMs);
    const heal = sum((scenario) => scenario.phases.healMs);
    const check = sum((scenario) => scenario.phases.checkMs);
    return { name, pairs: result.scenarios.length, total, traffic, heal, check };
  });
  const pairsMs = rows.reduce((total, row) => total + row.total, 0);
  const between = Math.max(0, run.durationMs - pairsMs - run.clusterStartMs);
  return [
    '',
    '### Where the time went',
    '',
    `${seconds(run.durationMs)} in all: ${seconds(pairsMs)} in the class × scenario pairs, ${seconds(run.clusterStartMs)} starting clusters, ${seconds(between)} between them (reports, teardown).`,
    '',
    '| class | pairs | time | traffic | heal | check | setup, teardown, shrinking |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${tableCell(row.name)} | ${row.pairs} | ${seconds(row.total)} | ${seconds(row.traffic)} | ${seconds(row.heal)} | ${seconds(row.check)} | ${seconds(Math.max(0, row.total - row.traffic - row.heal - row.check))} |`,
    ),
  ];
}

/** `report.md`: headline, per-class table, then each non-passing scenario with its replay line. */
export function reportMarkdown(run: JobReport): string {
  const exit = resultExitStatus(run);
  const lines = [
    `# Sink guarantee report — ${ICON[run.verdict]}`,
    '',
    `**Exit status ${exit.status} (${exit.name})**: ${exit.meaning}. Exit statuses: ${EXIT_STATUSES.map((row) => `${row.status} ${row.name}`).join(' · ')}.`,
    '',
    `run ${codeSpan(run.runId)} · backend ${codeSpan(run.backend)}${faultProxyText(run.faultProxy)} · profile ${codeSpan(run.profile)} · seed ${codeSpan(String(run.seed))} · ${(run.durationMs / 1000).toFixed(1)} s`,
    '',
    '| class | guarantee | verdict | attempted | acknowledged | lost | duplicated | unexpected | recovered | gave up (rows held back) | inserts ok/failed/unknown | unknown → landed/absent | replays | dedup hits | refusals | server dedup | faults fired | INSERT p50/p95 ms | rows/s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, result] of Object.entries(run.classes)) {
    const c = result.tally.counts;
    const faults =
      Object.entries(result.tally.faults)
        .map(([type, n]) => `${type}×${n}`)
        .join(' ') || '—';
    const latency = result.performance.latencyMs;
    const speed = `${latency === null ? '—' : `${latency.p50.toFixed(0)}/${latency.p95.toFixed(0)}`} | ${result.performance.rowsPerSecond?.toFixed(0) ?? '—'}`;
    lines.push(
      `| ${tableCell(name)} | ${result.guarantee} | ${ICON[result.verdict]} | ${c.attempted} | ${c.acknowledged} | ${c.lost} | ${c.duplicated} | ${c.unexpected} | ${c.recovered} | ${result.tally.giveUps} (${c.gaveUp}) | ${result.tally.inserts.ok}/${result.tally.inserts.failed}/${result.tally.inserts.unknown} | ${unknownSplit(result.tally.unknownOutcomes)} | ${result.tally.replays} | ${result.tally.dedupHits} | ${result.tally.refusals} | ${dedupStatement(result.tally.serverDedup)} | ${faults} | ${speed} |`,
    );
  }
  lines.push(...pathTable(run), ...readsTable(run), ...sinkReadsTable(run));
  lines.push(
    '',
    '### Scenarios',
    '',
    '| class | scenario | cluster | verdict | runs (shrink steps) | stopped | time |',
    '|---|---|---|---|---|---|---|',
  );
  for (const [name, result] of Object.entries(run.classes)) {
    for (const s of result.scenarios) {
      const stopped =
        s.verdict === 'violation' ? 'violation' : s.stopped === 'covered' ? 'coverage met' : 'budget spent';
      lines.push(
        `| ${tableCell(name)} | ${tableCell(s.name)} | ${tableCell(s.cluster ?? 'attached')} | ${ICON[s.verdict]} | ${s.runs}${s.shrinkRuns > 0 ? ` (${s.shrinkRuns})` : ''} | ${stopped} | ${(s.durationMs / 1000).toFixed(1)} s |`,
      );
    }
  }
  lines.push(...timeTable(run));
  lines.push(
    '',
    '### Recovery after the heals',
    '',
    RECOVERY_CAPTION,
    '',
    `| ${RECOVERY_HEADER.join(' | ')} |`,
    `|${RECOVERY_HEADER.map(() => '---').join('|')}|`,
    ...watchedClasses(run.classes).map(
      ([name, result]) => `| ${recoveryCells(tableCell(name), result.performance.recovery).join(' | ')} |`,
    ),
  );
  lines.push(...configurationMatrix(run), ...boundaryTable(run));
  const giveUps = Object.entries(run.classes).flatMap(([name, result]) =>
    result.scenarios.flatMap((s) =>
      s.giveUps.map((line) => `- ${tableCell(name)} / ${tableCell(s.name)}: ${codeSpan(line)}`),
    ),
  );
  if (giveUps.length > 0) {
    lines.push(
      '',
      '### Give-ups',
      '',
      'Each "Giving up insert into ClickHouse" of the runs above, judged against the seed\'s retry budget (a give-up it does not allow is a violation of its scenario):',
      '',
      ...giveUps,
    );
  }
  const details = Object.values(run.classes).flatMap((result) => result.scenarios.flatMap(scenarioDetail));
  if (details.length > 0) lines.push('', '### Not passing', '', ...details);
  if (run.clusterMemory !== null) {
    const members = Object.entries(run.clusterMemory).map(
      ([member, memory]) => `${codeSpan(member)} ${memory.peakRssMiB}`,
    );
    lines.push('', `Peak RSS per cluster process (MiB): ${members.join(' · ') || 'none running at the end'}.`);
  }
  if (run.backendLimits.length > 0)
    lines.push('', `Backend limits (${codeSpan(run.backend)}): ${run.backendLimits.map(codeSpan).join('; ')}.`);
  return `${lines.join('\n')}\n`;
}
