/**
 * One line of the benchmark's table: a measured figure against its target in CONTRACT section 12.
 */

export interface Figure {
  figure: string;
  /** Null when the figure could not be measured here (see `detail`). */
  value: number | null;
  unit: 'ratio' | 'ms';
  /** As the contract writes it, e.g. "≥ 0.85". */
  target: string;
  /** Null when not measured. */
  met: boolean | null;
  detail: string;
}

export function atLeast(figure: string, value: number, minimum: number, detail: string): Figure {
  return { figure, value: round(value), unit: 'ratio', target: `≥ ${minimum}`, met: value >= minimum, detail };
}

export function atMost(figure: string, value: number, maximum: number, unit: Figure['unit'], detail: string): Figure {
  const target = unit === 'ms' ? `≤ ${maximum} ms` : `≤ ${maximum}`;
  return { figure, value: round(value), unit, target, met: value <= maximum, detail };
}

/** A figure this run could not measure, and why (e.g. PostgreSQL unreachable). */
export function skipped(figure: string, unit: Figure['unit'], target: string, why: string): Figure {
  return { figure, value: null, unit, target, met: null, detail: `skipped: ${why}` };
}

export function formatValue(figure: Pick<Figure, 'value' | 'unit'>): string {
  if (figure.value === null) return '-';
  return figure.unit === 'ms' ? `${figure.value} ms` : figure.value.toFixed(2);
}

/** Two decimals for ratios, whole milliseconds for latencies: what the table shows is what is kept. */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}
