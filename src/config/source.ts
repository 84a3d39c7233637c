/**
 * The one seam between readConfig (read-config.ts) and the outside world: where a key's value
 * comes from. Kept apart so that tests and the CLI can hand readConfig settings of their own.
 */

/** Where a key's value comes from: the application's settings, then the environment. */
export interface ConfigSource {
  get(key: string): unknown;
}

/** An Express application's settings (or anything with `get(name)`), then the environment. */
export function sourceFrom(app: ConfigSource | undefined, env: NodeJS.ProcessEnv = process.env): ConfigSource {
  return {
    get(key) {
      const fromApp = app?.get(key);
      if (fromApp !== undefined && fromApp !== null) return fromApp;
      const fromEnv = env[key];
      // An empty environment variable is the usual way of leaving a key unset in shell scripts.
      return fromEnv === '' ? undefined : fromEnv;
    },
  };
}
