import type { Policy } from '../src/index.js';

/**
 * The demo's named policy: a user may see their own profile, an admin anyone's. `user_id` comes
 * from the URL (`/users/:user_id/profile`) and is a number when the URL has a canonical integer.
 */
export const isSelfOrAdmin: Policy = (user, { user_id }) => user.is_admin || user.id === user_id;
