/** A configuration value that cannot be used, named with its key, value and accepted form. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly key: string,
    readonly value: unknown,
    readonly expected: string,
  ) {
    super(`${key}: ${describeValue(value)} is not valid; expected ${expected}`);
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'no value';
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
