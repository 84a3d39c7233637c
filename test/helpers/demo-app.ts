/**
 * The demo application (`demo/app.ts`) loaded afresh in this process. The module builds its
 * ServiceAuth as it loads, reading the environment then, so each caller imports it under a query
 * of its own (`?name`): a fresh instance (its own ServiceAuth and database) that shares the modules
 * it imports. `env` is added to the environment for the time of the import, and taken out again.
 */
export type DemoModule = typeof import('../../demo/app.js');

export async function importDemo(name: string, env: Record<string, string>): Promise<DemoModule> {
  const previous = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return (await import(`../../demo/app.js?${encodeURIComponent(name)}`)) as DemoModule;
  } finally {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
