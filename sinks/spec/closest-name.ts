/** The candidate nearest to `name` by edit distance, if near enough to be a likely typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (bestDistance <= Math.max(2, Math.floor(name.length / 3))) return best;
  // `password` for `password_env_var`: a whole leading word of exactly one candidate.
  const extending = candidates.filter((candidate) => name.length >= 4 && candidate.startsWith(`${name}_`));
  return extending.length === 1 ? extending[0] : undefined;
}

/** `; did you mean 'x'?` or nothing. */
export function suggestion(name: string, candidates: readonly string[]): string {
  const closest = closestName(name, candidates);
  return closest === undefined ? '' : `; did you mean '${closest}'?`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
