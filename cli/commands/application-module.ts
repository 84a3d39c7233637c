/**
 * `--app <module>`: the operator's own application, so that its configuration (password rules,
 * database) and its event handlers apply to what the command does. The module is imported as the
 * application would be, and its ServiceAuth is the one `new ServiceAuth(app)` registered.
 */
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Application } from 'express';
import { ServiceAuth } from '../../src/service-auth.js';
import { CliFailure } from './failures.js';

/** Imports the module (a path relative to `cwd`) and returns its application's ServiceAuth. */
export async function serviceAuthOfModule(modulePath: string, cwd: string): Promise<ServiceAuth> {
  const file = resolve(cwd, modulePath);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliFailure(`Cannot load the application module ${modulePath}: ${firstLine(error)}${typeScriptHint(file, error)}`);
  }

  const app = [exports['default'], exports['app']].find(isExpressApp);
  if (!app) {
    throw new CliFailure(`${modulePath} exports no Express application: export it as the module's default export or as \`app\``);
  }
  const auth = ServiceAuth.of(app);
  if (!auth) {
    throw new CliFailure(`The application in ${modulePath} has no ServiceAuth: construct \`new ServiceAuth(app)\` when the module loads`);
  }
  return auth;
}

/** An Express application is a request-handler function carrying `set`, `get` and `use`. */
function isExpressApp(value: unknown): value is Application {
  return (
    typeof value === 'function' &&
    'set' in value && typeof value.set === 'function' &&
    'get' in value && typeof value.get === 'function' &&
    'use' in value && typeof value.use === 'function'
  );
}

function typeScriptHint(file: string, error: unknown): string {
  const unknownExtension = error instanceof Error && 'code' in error && error.code === 'ERR_UNKNOWN_FILE_EXTENSION';
  if (!unknownExtension || !['.ts', '.mts', '.cts'].includes(extname(file))) return '';
  return ' (a TypeScript module needs the CLI to run under tsx: node --import tsx node_modules/service-auth/dist/cli/index.js …)';
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
