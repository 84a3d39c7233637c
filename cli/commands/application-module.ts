/**
 * `--app <module>`: the operator's own application, so that its configuration (password rules,
 * database) and its event handlers apply to what the command does. The module is imported as the
 * application would be, and its ServiceAuth is the one `new ServiceAuth(app)` registered.
 */
import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Application } from 'express';
import { ServiceAuth } from '../../src/service-auth.js';
import { CliFailure } from './failures.js';

const TYPESCRIPT = ['.ts', '.mts', '.cts'];

/** Imports the module (a path relative to `cwd`) and returns its application's ServiceAuth. */
export async function serviceAuthOfModule(modulePath: string, cwd: string): Promise<ServiceAuth> {
  const file = resolve(cwd, modulePath);
  if (TYPESCRIPT.includes(extname(file))) await loadTypeScript(modulePath, file);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliFailure(`Cannot load the application module ${modulePath}: ${firstLine(error)}`);
  }

  const app = [exports['default'], exports['app']].find(isExpressApp);
  if (!app) {
    throw new CliFailure(
      `${modulePath} exports no Express application: export it as the module's default export or as \`app\``,
    );
  }
  const auth = ServiceAuth.of(app);
  if (!auth) {
    throw new CliFailure(
      `The application in ${modulePath} has no ServiceAuth: construct \`new ServiceAuth(app)\` when the module loads`,
    );
  }
  return auth;
}

/**
 * Makes TypeScript importable with the application's own tsx, found from the module's folder as
 * the application's imports are: its main entry is what `node --import tsx` loads (the hooks for
 * ESM and CommonJS), and importing it again is a no-op when the CLI already runs under that tsx.
 * (The programmatic `tsx/esm/api` resolves, from here, to its CommonJS build, which cannot find
 * its own files in tsx 4.23.)
 */
async function loadTypeScript(modulePath: string, file: string): Promise<void> {
  let tsx: string;
  try {
    tsx = createRequire(file).resolve('tsx');
  } catch {
    // Node 23.6 and later strip types themselves: let them try.
    if ((process.features as { typescript?: unknown }).typescript) return;
    throw new CliFailure(
      `Cannot load the application module ${modulePath}: a TypeScript module needs tsx, which is ` +
        `not installed for it (looked from ${dirname(file)}): npm install --save-dev tsx`,
    );
  }
  try {
    await import(pathToFileURL(tsx).href);
  } catch (error) {
    throw new CliFailure(
      `Cannot load the application module ${modulePath}: tsx (${tsx}) did not load: ${firstLine(error)}`,
    );
  }
}

/** An Express application is a request-handler function carrying `set`, `get` and `use`. */
function isExpressApp(value: unknown): value is Application {
  return (
    typeof value === 'function' &&
    'set' in value &&
    typeof value.set === 'function' &&
    'get' in value &&
    typeof value.get === 'function' &&
    'use' in value &&
    typeof value.use === 'function'
  );
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** The values a module exports (it is already loaded: the same module instance), for what else it holds (its entities). */
export async function exportsOfModule(modulePath: string, cwd: string): Promise<unknown[]> {
  return Object.values((await import(pathToFileURL(resolve(cwd, modulePath)).href)) as Record<string, unknown>);
}
