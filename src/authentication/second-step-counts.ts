/**
 * What the login's second step counts before it checks a proof. An authenticator code is the one
 * proof that can be guessed (three in a million are right at any moment), and new addresses bring
 * new tickets: so wrong codes also count per account, from every address (NIST SP 800-63B
 * §5.2.2); past the limit a code is 429 unchecked, while a recovery code (80 random bits) or a
 * passkey still logs in. Counts are taken before the check (codes sent at once cannot all be
 * checked), given back if the code was not checked, and cleared by a login whatever its factor
 * (NIST: previous failed attempts are disregarded).
 */
import type { Limiter } from '../rate-limit/limiter.js';
import { rateLimited } from '../rate-limit/middleware.js';
import type { AuthUser } from '../users/auth-user.js';

/** What the login's second step brings: a code from the authenticator app, a recovery code, or a passkey's answer. */
export interface SecondStepProof {
  code?: string;
  recoveryCode?: string;
  passkey?: unknown;
}

export interface SecondStepCounts {
  /** Gives back what was taken, for a proof that was not checked. */
  giveBack(): Promise<void>;
  /** Clears the failures counted before a successful login. */
  clear(): Promise<void>;
}

type Limits = { loginFailures: Limiter; secondFactorFailures: Limiter } | undefined;

/** Takes one try for the (email, client) `pair`, and for a code one for the account; 429 past either limit. */
export async function countSecondStep(
  limits: Limits,
  pair: string,
  user: AuthUser,
  proof: SecondStepProof,
): Promise<SecondStepCounts> {
  const account = `user:${user.id}`;
  const countsPerAccount = limits !== undefined && proof.passkey === undefined && proof.recoveryCode === undefined;
  const giveBack = async (): Promise<void> => {
    if (countsPerAccount) await limits.secondFactorFailures.refund(account);
  };
  if (countsPerAccount) {
    const state = await limits.secondFactorFailures.consume(account);
    if (!state.allowed) {
      throw rateLimited(state, 'wrong authenticator codes for this account (a recovery code or a passkey still works)');
    }
  }
  if (limits) {
    const state = await limits.loginFailures.consume(pair);
    if (!state.allowed) {
      await giveBack();
      throw rateLimited(state, 'failed logins for this account from this address');
    }
  }
  const clear = async (): Promise<void> => {
    if (limits) await Promise.all([limits.loginFailures.reset(pair), limits.secondFactorFailures.reset(account)]);
  };
  return { giveBack, clear };
}
