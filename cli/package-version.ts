import { readFileSync } from 'node:fs';

/**
 * The package's version for `--version`. The CLI runs from `cli/` (under tsx) and from
 * `dist/cli/`, so package.json is one or two levels up: look upwards for ours.
 */
export function packageVersion(): string | undefined {
  for (let url = new URL('../package.json', import.meta.url); ;) {
    try {
      const manifest = JSON.parse(readFileSync(url, 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'service-auth' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not here: keep looking upwards
    }
    const parent = new URL('../package.json', url);
    if (parent.href === url.href) return undefined;
    url = parent;
  }
}
