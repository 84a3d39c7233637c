/**
 * The bench server's baseline for token checks (bench/index.ts's "Passport bearer" ratio): the usual
 * hand-rolled alternative to the package's tokens, Passport's bearer strategy with the token's
 * SHA-256 looked up in the same database (indexed, as the package's legacy tokens are) on every
 * request.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';
import type { Express, RequestHandler } from 'express';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { ApiToken } from '../dist/src/storage/entities/index.js';

/** `/passport` behind the strategy; `settled()` waits for the lookups still queued when the load stops. */
export function passportRoute(app: Express, orm: MikroORM, ok: RequestHandler): { settled(): Promise<void> } {
  // Closing the ORM under lookups still in flight would fail them.
  let lookupsInFlight = 0;
  passport.use(
    new BearerStrategy((token, done) => {
      const hash = createHash('sha256').update(token).digest('hex');
      lookupsInFlight++;
      orm.em
        .fork()
        .findOne(ApiToken, { hash, algorithm: 'sha256', revokedAt: null }, { populate: ['user'] })
        .then(
          (row) => {
            lookupsInFlight--;
            done(null, row ? { id: row.user.id, email: row.user.email } : false);
          },
          (error: unknown) => {
            lookupsInFlight--;
            done(error);
          },
        );
    }),
  );
  app.get('/passport', passport.authenticate('bearer', { session: false }), ok);
  return {
    async settled() {
      while (lookupsInFlight) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}
