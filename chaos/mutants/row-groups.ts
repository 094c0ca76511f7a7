import type { StartedCluster } from '../../harness/cluster/index.ts';
import type { MatrixRow } from '../../reports/results/index.ts';
import type { UndoJournal } from '../nemeses/index.ts';
import { type ClusterShape, DEFAULT_SHAPE, shapeArgument } from '../scenarios/index.ts';

/** One row of the matrix: a mutant or control over every seed, on the cluster it is given. */
export interface PlannedRow {
  readonly label: string;
  readonly run: (cluster: StartedCluster, journal: UndoJournal) => Promise<MatrixRow>;
}

/** The rows one cluster runs, one after another, and the shape it is started in. */
export interface RowGroup {
  readonly shape: ClusterShape;
  readonly rows: readonly PlannedRow[];
}

/** `items` dealt round-robin into at most `parts` non-empty lists. */
export function dealt<T>(items: readonly T[], parts: number): T[][] {
  const hands = Array.from({ length: Math.max(1, Math.min(parts, items.length)) }, (): T[] => []);
  items.forEach((item, i) => hands[i % hands.length]?.push(item));
  return hands.filter((hand) => hand.length > 0);
}

/**
 * The clusters the matrix starts: each shape's rows dealt over up to `lanes` clusters of that
 * shape, so that the lanes stay busy while a shape has rows left; the staged loader's rows on
 * their own 1x2 clusters (its scenarios publish to the first shard's two replicas). A row runs
 * all its seeds on one cluster: its figures are comparable from seed to seed.
 */
export function rowGroups<Subject extends { readonly shape?: ClusterShape | undefined }, StagedSubject>(
  sinkSubjects: readonly Subject[],
  stagedSubjects: readonly StagedSubject[],
  lanes: number,
  plan: { readonly sink: (subject: Subject) => PlannedRow; readonly staged: (subject: StagedSubject) => PlannedRow },
): RowGroup[] {
  const shapes = new Map<string, { shape: ClusterShape; subjects: Subject[] }>();
  for (const subject of sinkSubjects) {
    const shape = subject.shape ?? DEFAULT_SHAPE;
    const key = shapeArgument(subject.shape);
    const entry = shapes.get(key) ?? { shape, subjects: [] };
    entry.subjects.push(subject);
    shapes.set(key, entry);
  }
  return [
    ...[...shapes.values()].flatMap(({ shape, subjects }) =>
      dealt(subjects, lanes).map((hand) => ({ shape, rows: hand.map(plan.sink) })),
    ),
    ...dealt(stagedSubjects, lanes).map((hand) => ({ shape: STAGED_SHAPE, rows: hand.map(plan.staged) })),
  ];
}

const STAGED_SHAPE: ClusterShape = { shards: 1, replicas: 2 };
