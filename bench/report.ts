/**
 * The benchmark's output: one table on the console, and bench/results.json, which the next run
 * reads back to print each figure beside its last value.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { formatValue, type Figure } from './figures.js';

export interface Results {
  /** ISO date and time of the run. */
  when: string;
  node: string;
  cpus: number;
  /** The machine's 1, 5 and 15-minute load averages when the run started and ended. */
  loadAverage: { start: number[]; end: number[] };
  /** How the figures were measured (durations, rounds, load shape, databases). */
  settings: Record<string, unknown>;
  figures: Figure[];
}

/** The results of the last run, or undefined if there is none (or it cannot be read). */
export async function readResults(path: string): Promise<Results | undefined> {
  try {
    const results = JSON.parse(await readFile(path, 'utf8')) as Results;
    return Array.isArray(results.figures) ? results : undefined;
  } catch {
    return undefined;
  }
}

export async function writeResults(path: string, results: Results): Promise<void> {
  await writeFile(path, `${JSON.stringify(results, null, 2)}\n`);
}

export function printTable(figures: Figure[], last: Results | undefined, settings: Record<string, unknown>): void {
  const lastValue = new Map(last?.figures.map((figure) => [figure.figure, formatValue(figure)]));
  const header = ['figure', 'measured', 'last run', 'target', 'met', 'detail'];
  const rows = figures.map((figure) => [
    figure.figure,
    formatValue(figure),
    lastValue.get(figure.figure) ?? '-',
    figure.target,
    figure.met === null ? '-' : figure.met ? 'yes' : 'NO',
    figure.detail,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  if (last)
    console.log(
      `"last run" is bench/results.json from ${last.when} (node ${last.node}, ${last.cpus} CPUs${settingsChanged(last, settings)}).`,
    );
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
}

/** ", other settings: seconds 1 (now 2), …" when the last run was measured differently. */
function settingsChanged(last: Results, settings: Record<string, unknown>): string {
  const changed = Object.entries(settings)
    .filter(([name, value]) => JSON.stringify(last.settings?.[name]) !== JSON.stringify(value))
    .map(([name, value]) => `${name} ${JSON.stringify(last.settings?.[name])} (now ${JSON.stringify(value)})`);
  return changed.length ? `, other settings: ${changed.join(', ')}` : '';
}
