import { divergedOn } from './anomaly-category.ts';
import { anomaly, type Anomaly } from './check-result.ts';
import type { DeliveryCounts } from './total-queue-checker.ts';

/** One load as the loader ended it: how many rows each production table owes, and what was acknowledged. */
export interface LoadRecord {
  readonly load: number;
  /** Rows of the load per production table. */
  readonly rows: Readonly<Record<string, number>>;
  /**
   * `gave-up-stage`: nothing of it was ever published; `gave-up-publish`: the tables after
   * `published` are unknown; `refused`: the engine refused the next table's publication, so it
   * and those after it hold nothing of the load.
   */
  readonly outcome: 'published' | 'gave-up-stage' | 'gave-up-publish' | 'refused';
  /** The tables whose publication the loader saw acknowledged. */
  readonly published: readonly string[];
}

/** Rows of one load in one table, as one read (or the final read) counted them. */
export interface LoadCount {
  readonly table: string;
  readonly load: number;
  readonly rows: number;
  /** Distinct ids among them: a load seen whole, once or in copies, has every id of it. */
  readonly distinct: number;
}

/** The final state of one replica, read directly after the heal and a sync. */
export interface ReplicaFinal {
  readonly replica: string;
  readonly counts: readonly LoadCount[];
  /** Rows whose values are not the source's, each named (table, load, id, what differs). */
  readonly wrongRows: readonly string[];
}

/** One reader's query that answered: every production table in one statement, on one replica. */
export interface ReadRecord {
  readonly replica: string;
  /** Milliseconds from the run's start. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly counts: readonly LoadCount[];
  /**
   * The replica was under repair when it answered (the run's fault took it out of service —
   * its Keeper metadata lost and `SYSTEM RESTORE REPLICA` run — and it had not synced yet): what
   * it showed is measured, not judged.
   */
  readonly repairing?: boolean;
}

export interface StagedObservation {
  readonly tables: readonly string[];
  readonly loads: readonly LoadRecord[];
  /** The replica the loader wrote to first; the others must agree with it. */
  readonly final: readonly ReplicaFinal[];
  readonly reads: readonly ReadRecord[];
  /** Loads whose publication the engine must refuse (the run set staging and production apart on purpose). */
  readonly mustRefuse?: readonly number[];
}

/** How long a multi-table load was seen in some of its tables and not the others (the switch's window). */
export interface CrossTableWindow {
  readonly load: number;
  /** Reads that saw the load in some of its tables and not in the others. */
  readonly splitReads: number;
  /** From the first such read's start to the last one's end, in ms; 0 when no read fell in the window. */
  readonly spanMs: number;
  /** Where that span lies, in ms from the run's start (both 0 when no read fell in it). */
  readonly fromMs: number;
  readonly toMs: number;
}

export interface StagedCheck {
  readonly anomalies: readonly Anomaly[];
  /** In rows (every table's share of every load). */
  readonly counts: DeliveryCounts;
  readonly windows: readonly CrossTableWindow[];
  readonly reads: number;
  /** Reads of a replica under repair, and how many of them saw part of a load. */
  readonly underRepair: { readonly reads: number; readonly fractured: number };
}

const where = (count: LoadCount) => `load ${count.load} in ${count.table}`;

/**
 * Staged atomic publication (seed 002), judged on the final state and on every read. Final: a
 * load's share of a table is all or nothing, once (`owed` exactly-once) or a whole number of
 * times (at-least-once, copies counted); a table whose publication was acknowledged must hold it
 * (`lost`), a load given up while staging must not reach production (`unexpected`), nor a row
 * that is not its source's; the replicas agree (`diverged`). Reads: a reader that saw part of a
 * load in a table saw a `fractured-read`; one that saw rows the final state does not hold (more
 * copies, or a load that never was) saw a `phantom-read`. A multi-table load seen in some of its
 * tables and not the others is the switch's window, measured, never a violation: seed 002 promises
 * it short, not absent. Where the run set staging apart from production (`mustRefuse`), the loader
 * must report the engine's refusal (`refusal-missing`), and only there (`refusal-unexpected`).
 * A read of a replica under repair (`repairing`) is counted, never judged: ClickHouse fetches a
 * restored replica's parts one by one (measured on 26.7), so it shows loads in part until it has
 * caught up, and a reader is not promised a replica that is out of service.
 */
export function checkStagedRun(observation: StagedObservation, owed: 'exactly-once' | 'at-least-once'): StagedCheck {
  const byLoad = new Map(observation.loads.map((record) => [record.load, record]));
  const expected = (count: LoadCount) => byLoad.get(count.load)?.rows[count.table];
  const [reference, ...others] = observation.final;
  const finalRows = new Map((reference?.counts ?? []).map((count) => [`${count.table}/${count.load}`, count.rows]));
  const finalDistinct = new Map(
    (reference?.counts ?? []).map((count) => [`${count.table}/${count.load}`, count.distinct]),
  );
  const lost: string[] = [];
  const duplicated: string[] = [];
  const unexpected: string[] = [...(reference?.wrongRows ?? [])];
  let duplicatedRows = 0;
  let lostRows = 0;
  let recoveredRows = 0;
  let gaveUpRows = 0;
  for (const record of observation.loads)
    for (const table of observation.tables) {
      const owedRows = record.rows[table] ?? 0;
      if (owedRows === 0) continue;
      const stored = finalRows.get(`${table}/${record.load}`) ?? 0;
      const acknowledged = record.published.includes(table);
      const count = {
        table,
        load: record.load,
        rows: stored,
        distinct: finalDistinct.get(`${table}/${record.load}`) ?? 0,
      };
      if (stored % owedRows !== 0 || (stored > 0 && count.distinct !== owedRows)) {
        const text = `${where(count)}: ${stored} rows (${count.distinct} distinct) of ${owedRows}`;
        if (stored < owedRows && acknowledged) lost.push(text);
        else unexpected.push(text);
        continue;
      }
      const copies = stored / owedRows;
      if (copies === 0 && acknowledged) {
        lost.push(`${where(count)}: published and acknowledged, absent`);
        lostRows += owedRows;
      }
      if (copies === 0 && !acknowledged && record.outcome !== 'published') gaveUpRows += owedRows;
      if (copies > 0 && record.outcome === 'gave-up-stage')
        unexpected.push(`${where(count)}: given up while staging, yet in production`);
      if (copies > 0 && record.outcome === 'refused' && !acknowledged)
        unexpected.push(`${where(count)}: its publication was refused, yet in production`);
      if (copies > 0 && !acknowledged && record.outcome === 'gave-up-publish') recoveredRows += owedRows;
      if (copies > 1) {
        duplicated.push(`${where(count)}: ${copies} copies`);
        duplicatedRows += (copies - 1) * owedRows;
      }
    }
  for (const count of reference?.counts ?? [])
    if (expected(count) === undefined && count.rows > 0)
      unexpected.push(`${where(count)}: ${count.rows} rows of no load`);
  const fractured: string[] = [];
  const phantom: string[] = [];
  const underRepair = { reads: 0, fractured: 0 };
  for (const read of observation.reads) {
    if (read.repairing === true) {
      underRepair.reads += 1;
      if (read.counts.some((count) => isPart(count, expected(count)))) underRepair.fractured += 1;
      continue;
    }
    for (const count of read.counts) {
      if (count.rows === 0) continue;
      const owedRows = expected(count);
      const at = `${read.replica} at ${read.startedAt} ms`;
      if (owedRows === undefined) phantom.push(`${at}: ${count.rows} rows of ${where(count)}, which is no load`);
      else if (isPart(count, owedRows))
        fractured.push(`${at}: ${count.rows} rows (${count.distinct} distinct) of ${owedRows} of ${where(count)}`);
      else if (count.rows > (finalRows.get(`${count.table}/${count.load}`) ?? 0))
        phantom.push(
          `${at}: ${count.rows} rows of ${where(count)}, the final state holds ${finalRows.get(`${count.table}/${count.load}`) ?? 0}`,
        );
    }
  }
  const mustRefuse = new Set(observation.mustRefuse ?? []);
  const refusals = observation.loads.filter((record) => mustRefuse.has(record.load));
  const anomalies = [
    anomaly(
      'refusal-missing',
      refusals
        .filter((record) => record.outcome !== 'refused')
        .map(
          (record) => `load ${record.load}: the engine refuses its publication, the loader reported ${record.outcome}`,
        ),
    ),
    anomaly(
      'refusal-unexpected',
      observation.loads
        .filter((record) => record.outcome === 'refused' && !mustRefuse.has(record.load))
        .map((record) => `load ${record.load}: reported refused, its tables meet the publication's requirements`),
    ),
    anomaly('lost', lost),
    anomaly('duplicated', owed === 'exactly-once' ? duplicated : []),
    anomaly('unexpected', unexpected),
    anomaly('fractured-read', fractured),
    anomaly('phantom-read', phantom),
  ];
  for (const other of others) {
    const differs = differences(reference?.counts ?? [], other.counts);
    if (differs.length > 0) anomalies.push(anomaly(divergedOn(other.replica), differs));
  }
  const total = observation.loads.reduce(
    (sum, record) => sum + Object.values(record.rows).reduce((a, b) => a + b, 0),
    0,
  );
  const acknowledged = observation.loads.reduce(
    (sum, record) => sum + record.published.reduce((a, table) => a + (record.rows[table] ?? 0), 0),
    0,
  );
  return {
    anomalies: anomalies.filter((found) => found.count > 0),
    counts: {
      attempted: total,
      acknowledged,
      lost: lostRows,
      duplicated: duplicatedRows,
      unexpected: unexpected.length,
      recovered: recoveredRows,
      gaveUp: gaveUpRows,
    },
    windows: observation.tables.length > 1 ? crossTableWindows(observation) : [],
    reads: observation.reads.length,
    underRepair,
  };
}

/** Rows of a load seen, but not a whole number of copies of it (or some of its ids missing). */
const isPart = (count: LoadCount, owedRows: number | undefined): boolean =>
  owedRows !== undefined && count.rows > 0 && (count.rows % owedRows !== 0 || count.distinct !== owedRows);

function differences(reference: readonly LoadCount[], other: readonly LoadCount[]): string[] {
  const mine = new Map(reference.map((count) => [`${count.table}/${count.load}`, count.rows]));
  const theirs = new Map(other.map((count) => [`${count.table}/${count.load}`, count.rows]));
  return [...new Set([...mine.keys(), ...theirs.keys()])]
    .filter((key) => (mine.get(key) ?? 0) !== (theirs.get(key) ?? 0))
    .map((key) => `${key}: ${theirs.get(key) ?? 0} rows, the reference ${mine.get(key) ?? 0}`);
}

/** Per published load, the reads that saw it in some of the tables and not in the others, and the span they cover. */
function crossTableWindows(observation: StagedObservation): CrossTableWindow[] {
  // A load the loader did not publish to every table has no switch to measure: it stays split, or was never there.
  // A replica under repair (or joining) shows loads as it copies them, not as they were switched: not the window.
  const inService = observation.reads.filter((read) => read.repairing !== true);
  return observation.loads
    .filter((record) => record.outcome === 'published')
    .map(({ load }) => {
      const split = inService.filter((read) => {
        const seen = observation.tables.map((table) =>
          read.counts.some((count) => count.table === table && count.load === load && count.rows > 0),
        );
        return seen.includes(true) && seen.includes(false);
      });
      const fromMs = split.length === 0 ? 0 : Math.min(...split.map((read) => read.startedAt));
      const toMs = split.length === 0 ? 0 : Math.max(...split.map((read) => read.endedAt));
      return { load, splitReads: split.length, spanMs: toMs - fromMs, fromMs, toMs };
    });
}
