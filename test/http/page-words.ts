/** For the tests that every word a page shows comes from `auth.texts`. */

/** Every text in capitals: a lower-case word left on a page then came from somewhere else. */
export function shout(value: unknown): unknown {
  return typeof value === 'string'
    ? value.toUpperCase()
    : typeof value === 'function'
      ? (...args: unknown[]) => String((value as (...a: unknown[]) => unknown)(...args)).toUpperCase()
      : Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shout(v)]));
}

/** The words of a page with a lower-case letter, but for addresses and tokens (which are data). */
export function wordsOutsideTexts(html: string): string[] {
  return html
    .replace(/<(style|script)>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .split(/\s+/)
    .filter((word) => /[a-z]/.test(word) && !word.includes('@') && !word.startsWith('sat_'));
}
