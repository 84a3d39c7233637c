import { createPostgresDatabase, describePostgres } from '../helpers/services.js';
import { upgradeContract } from './upgrade-contract.js';

// Registered only with SERVICE_AUTH_TEST_DATABASE_URL set; then an unreachable server fails it.
describePostgres('upgrade from the previous release', () => {
  upgradeContract({ backend: 'postgresql', create: createPostgresDatabase });
});
