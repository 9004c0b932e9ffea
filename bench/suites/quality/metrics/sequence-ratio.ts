/**
 * Python difflib's `SequenceMatcher(None, a, b).ratio()` over characters, without its "autojunk"
 * heuristic: 2·M / (|a| + |b|), where M counts the characters of the matching blocks found by
 * taking the longest common substring and recursing on both sides of it (Ratcliff/Obershelp).
 * Quadratic in the lengths, which is fine for sentences and short messages.
 */
export function sequenceRatio(left: string, right: string): number {
  const total = left.length + right.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(left, right)) / total;
}

function matchingCharacters(left: string, right: string): number {
  const longest = longestCommonSubstring(left, right);
  if (longest.length === 0) return 0;
  return (
    longest.length +
    matchingCharacters(left.slice(0, longest.leftStart), right.slice(0, longest.rightStart)) +
    matchingCharacters(
      left.slice(longest.leftStart + longest.length),
      right.slice(longest.rightStart + longest.length),
    )
  );
}

/** The first longest common substring (earliest in `left`, then in `right`, as difflib picks). */
function longestCommonSubstring(
  left: string,
  right: string,
): { leftStart: number; rightStart: number; length: number } {
  let best = { leftStart: 0, rightStart: 0, length: 0 };
  let previous = new Array<number>(right.length + 1).fill(0);
  for (let leftIndex = 1; leftIndex <= left.length; leftIndex++) {
    const current = new Array<number>(right.length + 1).fill(0);
    for (let rightIndex = 1; rightIndex <= right.length; rightIndex++) {
      if (left[leftIndex - 1] !== right[rightIndex - 1]) continue;
      const length = (previous[rightIndex - 1] ?? 0) + 1;
      current[rightIndex] = length;
      if (length > best.length)
        best = { leftStart: leftIndex - length, rightStart: rightIndex - length, length };
    }
    previous = current;
  }
  return best;
}
