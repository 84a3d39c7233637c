import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261123000000_demo_tables } from './Migration20261123000000_demo_tables.js';
import { Migration20261123000001_seed_reports } from './Migration20261123000001_seed_reports.js';

/** The demo's migrations, in order, recorded in its own table (demo_migrations). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261123000000_demo_tables', class: Migration20261123000000_demo_tables },
  { name: 'Migration20261123000001_seed_reports', class: Migration20261123000001_seed_reports },
];
