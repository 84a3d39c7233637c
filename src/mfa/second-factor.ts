/**
 * A user’s second factor (docs/mfa.md): their TOTP factor and recovery codes. Setting one up is
 * two steps (a pending secret, then a code that proves the app has it); the recovery codes are made
 * then, shown once, stored hashed. At login, a code is accepted once (the factor remembers the
 * step of the last one accepted) and a recovery code once.
 */
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import { Passkey, RecoveryCode, TotpFactor, User, WebauthnChallenge } from '../storage/entities/index.js';
import type { Storage, Transaction } from '../storage/storage.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import type { SecretBox } from './secret-box.js';
import { matchingStep, newTotpSecret, otpauthUrl, qrSvg } from './totp.js';

export interface TotpSetup {
  /** Base32, for typing into an app by hand. */
  secret: string;
  otpauth_url: string;
  /** The QR code of `otpauth_url`, as an SVG document. */
  qr_svg: string;
}

export interface SecondFactorState {
  totp: 'none' | 'pending' | 'enabled';
  recovery_codes_left: number;
}

export interface SecondFactorDeps {
  storage: Storage;
  /** Drops this instance's cached copies of users whose `mfa_enabled` changed (the feed tells the others). */
  forget(userIds: number[]): void;
  /** Ends the user's sessions, in the caller's transaction (an operator's reset). */
  endSessions(tx: Transaction, userId: number): Promise<void>;
  audit: AuditLog;
  box: SecretBox;
  /** The name the authenticator app shows beside the account: the public URL's host. */
  issuer: string;
}

export class SecondFactors {
  constructor(private readonly deps: SecondFactorDeps) {}

  async state(userId: number): Promise<SecondFactorState> {
    const em = (await this.deps.storage.em()).fork();
    const factor = await em.findOne(TotpFactor, { user: userId });
    const left = await em.count(RecoveryCode, { user: userId, usedAt: null });
    return {
      totp: factor ? (factor.confirmedAt ? 'enabled' : 'pending') : 'none',
      recovery_codes_left: factor?.confirmedAt ? left : 0,
    };
  }

  /** Whether logging in takes a second step. */
  async isRequired(userId: number): Promise<boolean> {
    return (await this.state(userId)).totp === 'enabled';
  }

  /** A new pending secret (replacing a pending one); 409 `mfa_already_enabled` if one is confirmed. */
  async beginTotp(user: { id: number; email: string }): Promise<TotpSetup> {
    const { storage, box, issuer } = this.deps;
    const secret = newTotpSecret();
    const em = await storage.em();
    await storage.transaction(em, async (tx) => {
      const existing = await tx.em.findOne(TotpFactor, { user: user.id });
      if (existing?.confirmedAt)
        throw new AuthError(
          'mfa_already_enabled',
          'An authenticator app is set up already; remove it first to set up another',
        );
      if (existing) await tx.em.nativeDelete(TotpFactor, { user: user.id });
      await tx.em.insert(TotpFactor, {
        user: user.id,
        secret: box.seal(secret),
        createdAt: new Date(),
        confirmedAt: null,
        lastStep: 0,
      });
    });
    const url = otpauthUrl(secret, user.email, issuer);
    return { secret, otpauth_url: url, qr_svg: await qrSvg(url) };
  }

  /** The pending set-up again (its code was wrong): the same secret, so the app's entry still fits. */
  async pendingTotp(user: { id: number; email: string }): Promise<TotpSetup | null> {
    const em = (await this.deps.storage.em()).fork();
    const factor = await em.findOne(TotpFactor, { user: user.id, confirmedAt: null });
    const secret = factor && this.deps.box.open(factor.secret);
    if (!secret) return null;
    const url = otpauthUrl(secret, user.email, this.deps.issuer);
    return { secret, otpauth_url: url, qr_svg: await qrSvg(url) };
  }

  /**
   * Confirms the pending secret with a code from the app: 401 `invalid_code` if it is not right,
   * 404 `not_found` if nothing is pending. Returns the ten recovery codes, the only time they exist.
   */
  async confirmTotp(userId: number, code: string): Promise<string[]> {
    const { storage, audit, box } = this.deps;
    const em = await storage.em();
    return storage.transaction(em, async (tx) => {
      const factor = await tx.em.findOne(TotpFactor, { user: userId, confirmedAt: null });
      if (!factor) throw nothingPending();
      const secret = box.open(factor.secret);
      const step = secret === undefined ? null : matchingStep(secret, String(code));
      if (step === null) throw invalidCode();
      // Conditional: of two confirmations at once, one confirms and the other finds nothing pending
      // (else the second would replace the recovery codes the first just showed).
      const confirmed = await tx.em.nativeUpdate(
        TotpFactor,
        { user: userId, confirmedAt: null },
        { confirmedAt: new Date(), lastStep: step },
      );
      if (confirmed === 0) throw nothingPending();
      await this.markUser(tx, userId, new Date());
      const codes = newRecoveryCodes();
      await tx.em.nativeDelete(RecoveryCode, { user: userId });
      await tx.em.insertMany(
        RecoveryCode,
        codes.map((code) => ({ codeHash: recoveryCodeHash(code), user: userId, createdAt: new Date(), usedAt: null })),
      );
      audit.record(tx, { type: 'mfa_enabled', userId, detail: { factor: 'totp' } });
      return codes;
    });
  }

  /** Removes the user's authenticator app and recovery codes (the caller checked the password). */
  async remove(userId: number): Promise<boolean> {
    const em = await this.deps.storage.em();
    return this.deps.storage.transaction(em, (tx) => this.removeTotp(tx, userId));
  }

  /**
   * Removes all that stands beside the password: the app, the recovery codes and the passkeys, for
   * an operator (`auth reset-mfa`) helping someone who lost them, or whose device another holds;
   * and, if any was removed, ends the user's sessions, which a stolen device may have opened.
   */
  async reset(userId: number): Promise<{ totp: boolean; passkeys: number }> {
    const { storage, audit } = this.deps;
    const em = await storage.em();
    return storage.transaction(em, async (tx) => {
      const totp = await this.removeTotp(tx, userId);
      const passkeys = await tx.em.nativeDelete(Passkey, { user: userId });
      await tx.em.nativeDelete(WebauthnChallenge, { userId });
      if (passkeys > 0)
        audit.record(tx, { type: 'mfa_disabled', userId, detail: { factor: 'passkey', count: passkeys } });
      if (totp || passkeys > 0) await this.deps.endSessions(tx, userId);
      return { totp, passkeys };
    });
  }

  private async removeTotp(tx: Transaction, userId: number): Promise<boolean> {
    const removed = await tx.em.nativeDelete(TotpFactor, { user: userId });
    await tx.em.nativeDelete(RecoveryCode, { user: userId });
    if (removed === 0) return false;
    await this.markUser(tx, userId, null);
    this.deps.audit.record(tx, { type: 'mfa_disabled', userId, detail: { factor: 'totp' } });
    return true;
  }

  /**
   * Uses a code for a login's second step, in the login's transaction: a code from the app, of a
   * step later than the last accepted, or an unused recovery code. False if it is neither.
   */
  async use(
    tx: Transaction,
    userId: number,
    proof: { code?: string; recoveryCode?: string },
  ): Promise<'totp' | 'recovery_code' | null> {
    const { audit, box } = this.deps;
    if (proof.recoveryCode !== undefined) {
      const used = await tx.em.nativeUpdate(
        RecoveryCode,
        { codeHash: recoveryCodeHash(proof.recoveryCode), user: userId, usedAt: null },
        { usedAt: new Date() },
      );
      if (used === 0) return null;
      audit.record(tx, { type: 'recovery_code_used', userId });
      return 'recovery_code';
    }
    const factor = await tx.em.findOne(TotpFactor, { user: userId, confirmedAt: { $ne: null } });
    const secret = factor && box.open(factor.secret);
    const step = secret ? matchingStep(secret, String(proof.code ?? '')) : null;
    if (step === null || step <= factor!.lastStep) return null;
    // Conditional: of two requests with one code, one moves the step and the other finds it moved.
    const moved = await tx.em.nativeUpdate(TotpFactor, { user: userId, lastStep: { $lt: step } }, { lastStep: step });
    return moved > 0 ? 'totp' : null;
  }

  /** Whether the user has a second factor, as the user object says (`mfa_enabled`), on every instance. */
  private async markUser(tx: Transaction, userId: number, at: Date | null): Promise<void> {
    await tx.em.nativeUpdate(User, { id: userId }, { mfaEnabledAt: at, updatedAt: new Date() });
    await this.deps.storage.changes.note(tx.em, [userId]);
    tx.afterCommit(() => this.deps.forget([userId]));
  }
}

function nothingPending(): AuthError {
  return new AuthError('not_found', 'No authenticator app is waiting to be confirmed; start the set-up again');
}

export function invalidCode(): AuthError {
  return new AuthError('invalid_code', 'That code is not right, or was used already');
}
