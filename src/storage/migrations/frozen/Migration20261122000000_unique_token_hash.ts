// ../Migration20261122000000_unique_token_hash.ts as MikroORM 6 compiles it.
// Written by scripts/freeze-migrations.ts: do not edit.
import type { FrozenMigration } from './frozen-migration.js';

export const Migration20261122000000_unique_token_hash: FrozenMigration = {
  sqlite: {
    up: [
      'drop index `service_auth_api_tokens_hash_index`',
      'create unique index `service_auth_api_tokens_hash_unique` on `service_auth_api_tokens` (`hash`)',
    ],
    down: [
      'drop index `service_auth_api_tokens_hash_unique`',
      'create index `service_auth_api_tokens_hash_index` on `service_auth_api_tokens` (`hash`)',
    ],
  },
  postgresql: {
    up: [
      'drop index "service_auth_api_tokens_hash_index"',
      'alter table "service_auth_api_tokens" add constraint "service_auth_api_tokens_hash_unique" unique ' + '("hash")',
    ],
    down: [
      'alter table "service_auth_api_tokens" drop constraint "service_auth_api_tokens_hash_unique"',
      'create index "service_auth_api_tokens_hash_index" on "service_auth_api_tokens" ("hash")',
    ],
  },
};
