/** Plain-text tables, shared by the report and the suites' own tables (no import of the report). */

/** Left-aligns the first `leftColumns` columns, right-aligns the rest, with a rule under the header. */
export function renderGrid(lines: readonly string[][], leftColumns = 1): string {
  const widths: number[] = [];
  for (const line of lines)
    line.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  const render = (line: readonly string[]) =>
    line
      .map((cell, index) =>
        index < leftColumns ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0),
      )
      .join("  ")
      .trimEnd();
  const [header, ...body] = lines;
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [render(header ?? []), rule, ...body.map(render)].join("\n");
}
