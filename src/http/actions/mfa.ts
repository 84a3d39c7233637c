/**
 * Setting up and removing the second factor, whichever router (pages or JSON) took the request.
 * Each needs a session (not a token) from this site: the guard checks the site, `assertSession`
 * the session.
 */
import type { Request } from 'express';
import type { SignIn } from '../../authentication/sign-in.js';
import { AuthError } from '../../errors.js';
import type { PasskeyView, Passkeys } from '../../mfa/passkeys.js';
import type { SecondFactors, SecondFactorState, TotpSetup } from '../../mfa/second-factor.js';
import type { AccountSchemas } from '../schemas/accounts.js';
import { parseBody } from '../schemas/parse.js';
import { assertSession } from './session-only.js';

export interface MfaActionDeps {
  schemas: AccountSchemas;
  signIn: SignIn;
  secondFactors: SecondFactors;
  passkeys: Passkeys;
}

export class MfaActions {
  constructor(private readonly deps: MfaActionDeps) {}

  state(req: Request): Promise<SecondFactorState> {
    assertSession(req);
    return this.deps.secondFactors.state(req.user!.id);
  }

  /** A new secret, pending until a code confirms it (409 `mfa_already_enabled` if one is confirmed). */
  beginTotp(req: Request): Promise<TotpSetup> {
    assertSession(req);
    return this.deps.secondFactors.beginTotp(req.user!);
  }

  /** The pending set-up again, for the page to show after a wrong code. */
  pendingTotp(req: Request): Promise<TotpSetup | null> {
    assertSession(req);
    return this.deps.secondFactors.pendingTotp(req.user!);
  }

  /** The ten recovery codes, once. */
  confirmTotp(req: Request): Promise<string[]> {
    assertSession(req);
    const { code } = parseBody(this.deps.schemas.confirmTotp, req);
    return this.deps.secondFactors.confirmTotp(req.user!.id, code);
  }

  passkeys(req: Request): Promise<PasskeyView[]> {
    assertSession(req);
    return this.deps.passkeys.list(req.user!.id);
  }

  /**
   * With the password (401 `invalid_credentials`, counted as a failed login): a passkey signs in
   * alone, so a session left open must not be enough to add one.
   */
  async passkeyOptions(req: Request): Promise<unknown> {
    assertSession(req);
    const { password } = parseBody(this.deps.schemas.passkeyOptions, req);
    await this.deps.signIn.confirmPassword(req, req.user!, password);
    return this.deps.passkeys.registrationOptions(req.user!);
  }

  addPasskey(req: Request): Promise<PasskeyView> {
    assertSession(req);
    const { response, name } = parseBody(this.deps.schemas.addPasskey, req);
    return this.deps.passkeys.register(req.user!.id, response, name);
  }

  /** 404 `not_found` for a passkey the caller does not have, like an unknown one. */
  async removePasskey(req: Request, id: string): Promise<void> {
    assertSession(req);
    if (!(await this.deps.passkeys.remove(req.user!.id, id)))
      throw new AuthError('not_found', 'You have no passkey with this id');
  }

  /** With the password (401 `invalid_credentials`, counted as a failed login). */
  async removeTotp(req: Request): Promise<void> {
    assertSession(req);
    const { password } = parseBody(this.deps.schemas.removeTotp, req);
    await this.deps.signIn.confirmPassword(req, req.user!, password);
    await this.deps.secondFactors.remove(req.user!.id);
  }
}
