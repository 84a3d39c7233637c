import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261123000000_demo_tables } from './Migration20261123000000_demo_tables.js';
import { Migration20261123000001_seed_reports } from './Migration20261123000001_seed_reports.js';
import { Migration20261126000000_project_tracker } from './Migration20261126000000_project_tracker.js';

/** The demo's migrations, in order, recorded in its own table (demo_migrations). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261123000000_demo_tables', class: Migration20261123000000_demo_tables },
  { name: 'Migration20261123000001_seed_reports', class: Migration20261123000001_seed_reports },
  { name: 'Migration20261126000000_project_tracker', class: Migration20261126000000_project_tracker },
];
