/**
 * One line of the benchmark's table: a measured figure against its target.
 */

export interface Figure {
  figure: string;
  /** Null when the figure could not be measured here (see `detail`). */
  value: number | null;
  unit: 'ratio' | 'µs' | 'ms' | 's' | 'per s' | 'KB';
  /** As the contract writes it, e.g. "≥ 0.85". */
  target: string;
  /** Null when not measured. */
  met: boolean | null;
  detail: string;
}

// Values are kept to two decimals, rounded towards missing the target: a ratio of 0.846 against
// "≥ 0.85" shows as 0.84, not as a 0.85 marked NO. With targets of two decimals at most, the
// value shown meets its target exactly when the measured one does.

export function atLeast(figure: string, value: number, minimum: number, detail: string): Figure {
  return {
    figure,
    value: Math.floor(value * 100 + 1e-9) / 100,
    unit: 'ratio',
    target: `≥ ${minimum}`,
    met: value >= minimum,
    detail,
  };
}

export function atMost(figure: string, value: number, maximum: number, unit: Figure['unit'], detail: string): Figure {
  const target =
    unit === 'µs' || unit === 'ms' || unit === 's' || unit === 'KB'
      ? `≤ ${maximum} ${unit}`
      : unit === 'per s'
        ? `≤ ${maximum}/s`
        : `≤ ${maximum}`;
  return { figure, value: Math.ceil(value * 100 - 1e-9) / 100, unit, target, met: value <= maximum, detail };
}

/** A figure this run could not measure, and why (e.g. PostgreSQL unreachable). */
export function skipped(figure: string, unit: Figure['unit'], target: string, why: string): Figure {
  return { figure, value: null, unit, target, met: null, detail: `skipped: ${why}` };
}

export function formatValue(figure: Pick<Figure, 'value' | 'unit'>): string {
  if (figure.value === null) return '-';
  if (figure.unit === 'µs' || figure.unit === 'ms' || figure.unit === 's' || figure.unit === 'KB')
    return `${figure.value} ${figure.unit}`;
  return figure.unit === 'per s' ? `${figure.value}/s` : figure.value.toFixed(2);
}
