/**
 * The database drivers are the application's to install (optional peer dependencies): one on
 * SQLite has no PostgreSQL driver, and the reverse. A missing one is named, with the version that
 * matches the installed @mikro-orm/core (MikroORM wants every @mikro-orm/* package at one version).
 */
import { Utils } from '@mikro-orm/core';

type DriverPackage = '@mikro-orm/sqlite' | '@mikro-orm/postgresql';

const DATABASE: Record<DriverPackage, string> = {
  '@mikro-orm/sqlite': 'SQLite',
  '@mikro-orm/postgresql': 'PostgreSQL',
};

/** `load()` (an `import()` of `name`), or an error that says what to install when it is missing. */
export async function importDriver<T>(name: DriverPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    // Only the driver itself: a module missing inside it is another problem, reported as it is.
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      String((error as Error).message).includes(`'${name}'`);
    if (!missing) throw error;
    throw new Error(`the ${DATABASE[name]} driver is not installed: npm install ${name}@${Utils.getORMVersion()}`, {
      cause: error,
    });
  }
}
