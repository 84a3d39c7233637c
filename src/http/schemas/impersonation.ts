/** `POST /api/impersonation`'s body, and its answers (docs/impersonation.md). */
import { z } from 'zod';
import { userSchema } from './responses.js';

export const impersonationSchemas = {
  start: z
    .object({
      user_id: z
        .number({ error: 'must be a user id (a number)' })
        .int('must be a user id (a whole number)')
        .positive('must be a user id (1 or more)')
        .max(2 ** 31 - 1, 'must be a user id')
        .meta({ description: 'The id of the user to act as' }),
    })
    .meta({ id: 'ImpersonationRequest' }),
  started: z
    .object({
      user: userSchema.meta({ description: 'The user the browser now acts as (`req.user`)' }),
      impersonator: userSchema.meta({ description: 'The user really acting (`req.impersonator`)' }),
    })
    .meta({ id: 'ImpersonationStarted' }),
};
