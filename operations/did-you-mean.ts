/**
 * "Did you mean": the known name nearest to what an operator typed, when it is near enough to be a
 * typo (a letter left out, added, changed or two swapped; at most a third of the name's letters,
 * and at most 3), compared without case. Ties go to the first name known.
 */
export function nearest(typed: string, known: Iterable<string>): string | undefined {
  const input = typed.toLowerCase();
  const allowed = Math.min(3, Math.max(1, Math.floor(input.length / 3)));
  let best: { name: string; edits: number } | undefined;
  for (const name of known) {
    const edits = editDistance(input, name.toLowerCase());
    if (edits <= allowed && edits < (best?.edits ?? Number.POSITIVE_INFINITY)) best = { name, edits };
  }
  return best?.name;
}

/** ` Did you mean "acme"?` when a known name is near what was typed, else nothing. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const name = nearest(typed, known);
  return name === undefined || name === typed ? '' : ` Did you mean "${name}"?`;
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: optimal string alignment. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      const row = rows[i];
      if (row) row[j] = value;
    }
  return at(a.length, b.length);
}
