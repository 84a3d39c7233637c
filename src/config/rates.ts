/** A rate such as "10 per minute": `points` requests per window of `durationSeconds`. */
export interface Rate {
  readonly points: number;
  readonly durationSeconds: number;
  /** The rate as written in the documentation's form, e.g. "10 per minute". */
  readonly text: string;
}

const UNIT_SECONDS = { second: 1, minute: 60, hour: 3600, day: 86_400 } as const;
type Unit = keyof typeof UNIT_SECONDS;

const RATE_PATTERN = /^\s*(\d+)\s*(?:per\s+|\/\s*)(second|minute|hour|day)\s*$/i;

/** Parses "<count> per <unit>" or "<count>/<unit>"; throws a RangeError otherwise. */
export function parseRate(text: string): Rate {
  const match = RATE_PATTERN.exec(text);
  const points = match ? Number(match[1]) : 0;
  if (!match || !Number.isSafeInteger(points) || points < 1) {
    throw new RangeError(`not a rate: ${JSON.stringify(text)}`);
  }
  const unit = match[2]!.toLowerCase() as Unit;
  return { points, durationSeconds: UNIT_SECONDS[unit], text: `${points} per ${unit}` };
}
