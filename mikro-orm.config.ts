/**
 * MikroORM's own CLI configuration, for working on the package's storage:
 *
 *   npm run orm -- debug
 *   npm run orm -- migration:list
 *   npm run orm -- schema:update --dump   # should print nothing: migrations match the entities
 *
 * The database is SERVICE_AUTH_DATABASE_URL, else ./service-auth.sqlite, as for the package.
 */
import type { Options } from '@mikro-orm/core';
import { ormOptions } from './src/storage/orm.js';

export default async (): Promise<Options> => ({
  ...(await ormOptions(process.env['SERVICE_AUTH_DATABASE_URL'] || 'sqlite:service-auth.sqlite')),
  // The package runs under its own RequestContext name; MikroORM's CLI asks for 'default'.
  contextName: 'default',
});
