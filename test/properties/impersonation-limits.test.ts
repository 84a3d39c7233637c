/**
 * The rule of what is refused while impersonating agrees with how Express routes: a path changed
 * only in its letters' case or by trailing slashes reaches the same route, and is refused alike;
 * the paths next to the account's own (the login's second step, the address's confirmation link)
 * are not.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { refusedWhileImpersonating } from '../../src/http/requests/impersonation-limits.js';

const REFUSED: [string, string][] = [
  ['POST', '/password'],
  ['POST', '/email'],
  ['DELETE', '/me'],
  ['POST', '/delete-account'],
  ['POST', '/mfa/totp/remove'],
  ['DELETE', '/api/mfa/totp'],
  ['DELETE', '/api/passkeys/abc'],
  ['POST', '/sessions/end-others'],
  ['DELETE', '/api/sessions'],
  ['POST', '/api/tokens/abc/revoke'],
  ['POST', '/api/impersonation'],
];
const ALLOWED: [string, string][] = [
  ['POST', '/login/mfa'],
  ['POST', '/confirm-email'],
  ['POST', '/emails'],
  ['GET', '/api/tokens'],
  ['GET', '/sessions'],
  ['DELETE', '/api/impersonation'],
  ['POST', '/impersonation/stop'],
  ['POST', '/api/orgs'],
];

/** The path as a client may send it: each letter in either case, and some trailing slashes. */
const spelled = (path: string) =>
  fc
    .tuple(fc.array(fc.boolean(), { minLength: path.length, maxLength: path.length }), fc.integer({ min: 0, max: 3 }))
    .map(
      ([upper, slashes]) => [...path].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('') + '/'.repeat(slashes),
    );

describe('property: what is refused while impersonating', () => {
  it('is the same however the path’s case and trailing slashes are spelled', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...REFUSED, ...ALLOWED)
          .chain(([method, path]) => spelled(path).map((variant) => ({ method, path, variant }))),
        ({ method, path, variant }) => {
          expect(refusedWhileImpersonating(method, variant), `${method} ${variant}`).to.equal(
            refusedWhileImpersonating(method, path),
          );
        },
      ),
    );
    for (const [method, path] of REFUSED)
      expect(refusedWhileImpersonating(method, path), `${method} ${path}`).to.equal(true);
    for (const [method, path] of ALLOWED)
      expect(refusedWhileImpersonating(method, path), `${method} ${path}`).to.equal(false);
  });
});
