/** Plain aligned columns for people; `--json` is the form for programs. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  // Widths in code points, so that an accented email does not shift the columns after it.
  const width = (text: string): number => [...text].length;
  const widths = headers.map((header, column) =>
    Math.max(width(header), ...rows.map((row) => width(row[column] ?? ''))),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column]! - width(cell))))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A time for a table cell: ISO 8601 in UTC to the second, `2026-11-21T12:00:00Z`. */
export function tableTime(time: Date | string): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
