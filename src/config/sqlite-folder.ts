/**
 * An SQLite file must be in a folder that exists. The driver would create any folder on the way
 * to it, so a mistyped path (`sqlite:/var/lib/ap/auth.sqlite`) would quietly become a new, empty
 * database beside the real one; the server and the CLI refuse it instead, with this one check.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * What is wrong with where an `sqlite:<path>` URL puts its file, or undefined when nothing is (or
 * when it is no file: `sqlite::memory:`, an `sqlite:file:` URI, another database). A relative path
 * is taken from the working directory, as the driver takes it.
 */
export function sqliteFolderProblem(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === ':memory:' || path.startsWith('file:')) return undefined;
  const folder = dirname(resolve(path));
  if (existsSync(folder) && statSync(folder).isDirectory()) return undefined;
  return (
    `an SQLite file in a folder that exists, and ${folder} does not (a mistyped path would ` +
    `otherwise become a new, empty database)`
  );
}
