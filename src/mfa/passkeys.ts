/**
 * Passkeys (WebAuthn), with `@simplewebauthn/server`: a user registers some from the `/passkeys`
 * page and signs in with one, without a password. The relying party is SERVICE_AUTH_PUBLIC_URL:
 * its host is the RP id, its origin the one expected. Challenges are single use (the answer that
 * uses one deletes it) and expire after five minutes.
 */
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AuditLog } from '../audit/audit-log.js';
import { AuthError } from '../errors.js';
import { Passkey, WebauthnChallenge } from '../storage/entities/index.js';
import { SingleUseRows } from '../storage/single-use-rows.js';
import type { Storage } from '../storage/storage.js';
import { once } from '../once.js';

const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/**
 * Loaded on the first passkey operation, not with the package: it and its ASN.1 and COSE parsers
 * are a quarter of the package's import time, which every CLI command and cold start would pay.
 */
const webauthn: () => Promise<typeof import('@simplewebauthn/server')> = once(() => import('@simplewebauthn/server'));

/** A challenge's use: making a passkey, signing in with one, or the second step of a password login. */
type ChallengePurpose = 'register' | 'login' | 'second';
const MAX_NAME = 100;

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface PasskeyDeps {
  storage: Storage;
  audit: AuditLog;
  /** SERVICE_AUTH_PUBLIC_URL. */
  publicUrl: string;
}

export class Passkeys {
  private readonly rpID: string;
  private readonly origin: string;
  private readonly challenges: SingleUseRows<WebauthnChallenge>;

  constructor(private readonly deps: PasskeyDeps) {
    this.challenges = new SingleUseRows(deps.storage, { entity: WebauthnChallenge, ttlMs: CHALLENGE_TTL_MS });
    const url = new URL(deps.publicUrl);
    this.rpID = url.hostname;
    this.origin = url.origin;
  }

  async list(userId: number): Promise<PasskeyView[]> {
    const rows = await this.rowsOf(userId);
    return rows.map((row) => ({
      id: row.credentialId,
      name: row.name,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
    }));
  }

  async has(userId: number): Promise<boolean> {
    const em = (await this.deps.storage.em()).fork();
    return (await em.count(Passkey, { user: userId })) > 0;
  }

  /** What the browser needs to make a passkey for the user (none it already has). */
  async registrationOptions(user: { id: number; email: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.rowsOf(user.id);
    const options = await (
      await webauthn()
    ).generateRegistrationOptions({
      rpName: this.rpID,
      rpID: this.rpID,
      userName: user.email,
      userID: new TextEncoder().encode(`service-auth:${user.id}`),
      attestationType: 'none',
      excludeCredentials: existing.map((row) => ({ id: row.credentialId, transports: transportsOf(row) })),
      // A passkey signs in alone, so it must be two factors alone: the device, and the PIN or
      // fingerprint that unlocks it (a key that only senses a touch cannot be registered).
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.remember(options.challenge, 'register', user.id);
    return options;
  }

  /** Keeps the passkey the browser made, if its answer is to this user's challenge; 400 `invalid_passkey` if not. */
  async register(userId: number, response: unknown, name: unknown): Promise<PasskeyView> {
    const verification = await (
      await webauthn()
    )
      .verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: (challenge) => this.useChallenge(challenge, 'register', userId),
        expectedOrigin: this.origin,
        expectedRPID: this.rpID,
        requireUserVerification: true,
      })
      .catch(() => null);
    if (!verification?.verified || !verification.registrationInfo) throw invalidPasskey();
    const { credential } = verification.registrationInfo;
    const label = typeof name === 'string' && name.trim() ? name.trim().slice(0, MAX_NAME) : 'Passkey';
    const { storage, audit } = this.deps;
    const em = await storage.em();
    const now = new Date();
    await storage.transaction(em, async (tx) => {
      await tx.em.insert(Passkey, {
        credentialId: credential.id,
        user: userId,
        name: label,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: (credential.transports ?? []).join(','),
        createdAt: now,
        lastUsedAt: null,
      });
      audit.record(tx, { type: 'mfa_enabled', userId, detail: { factor: 'passkey', passkey: label } });
    });
    return { id: credential.id, name: label, created_at: now.toISOString(), last_used_at: null };
  }

  /**
   * What the browser needs to sign in with any passkey of this site; or, for the second step of a
   * password login (`forUser`), with one of that user's.
   */
  async authenticationOptions(forUser?: { id: number }): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allowCredentials = forUser
      ? (await this.rowsOf(forUser.id)).map((row) => ({ id: row.credentialId, transports: transportsOf(row) }))
      : undefined;
    // Alone, the passkey stands for the password too: the user must be verified. After the
    // password, it is the second factor, and the device's presence is enough.
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({
      rpID: this.rpID,
      userVerification: forUser ? 'preferred' : 'required',
      allowCredentials,
    });
    await this.remember(options.challenge, forUser ? 'second' : 'login', forUser?.id ?? null);
    return options;
  }

  /**
   * The user whose passkey signed this site's challenge; 400 `invalid_passkey` if none did. With
   * `forUserId`, the challenge must be that user's second step, and the passkey theirs.
   */
  async authenticate(response: unknown, forUserId?: number): Promise<{ userId: number; passkey: string }> {
    const id = (response as { id?: unknown } | null)?.id;
    const em = (await this.deps.storage.em()).fork();
    const row = typeof id === 'string' ? await em.findOne(Passkey, { credentialId: id }) : null;
    if (!row || (forUserId !== undefined && row.user.id !== forUserId)) throw invalidPasskey();
    const verification = await (
      await webauthn()
    )
      .verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: (challenge) =>
          forUserId === undefined
            ? this.useChallenge(challenge, 'login', null)
            : this.useChallenge(challenge, 'second', forUserId),
        expectedOrigin: this.origin,
        expectedRPID: this.rpID,
        credential: {
          id: row.credentialId,
          publicKey: Buffer.from(row.publicKey, 'base64url'),
          counter: row.counter,
          transports: transportsOf(row),
        },
        requireUserVerification: forUserId === undefined,
      })
      .catch(() => null);
    if (!verification?.verified) throw invalidPasskey();
    await em.nativeUpdate(
      Passkey,
      { credentialId: row.credentialId },
      { counter: verification.authenticationInfo.newCounter, lastUsedAt: new Date() },
    );
    return { userId: row.user.id, passkey: row.name };
  }

  /** Removes one of the user's passkeys; false if the user has none with this id. */
  async remove(userId: number, id: string): Promise<boolean> {
    const { storage, audit } = this.deps;
    const em = await storage.em();
    return storage.transaction(em, async (tx) => {
      const removed = await tx.em.nativeDelete(Passkey, { user: userId, credentialId: id });
      if (removed > 0) audit.record(tx, { type: 'mfa_disabled', userId, detail: { factor: 'passkey' } });
      return removed > 0;
    });
  }

  private async rowsOf(userId: number): Promise<Passkey[]> {
    const em = (await this.deps.storage.em()).fork();
    return em.find(Passkey, { user: userId }, { orderBy: { createdAt: 'asc' } });
  }

  private async remember(challenge: string, purpose: ChallengePurpose, userId: number | null): Promise<void> {
    await this.challenges.keep({ challenge, purpose, userId });
  }

  /** True once for a live challenge of this purpose (and user): the answer that uses it deletes it. */
  private async useChallenge(challenge: string, purpose: ChallengePurpose, userId: number | null): Promise<boolean> {
    return (await this.challenges.take({ challenge, purpose, userId })) !== null;
  }
}

function transportsOf(row: Passkey): AuthenticatorTransport[] {
  return row.transports ? (row.transports.split(',') as AuthenticatorTransport[]) : [];
}

function invalidPasskey(): AuthError {
  return new AuthError('invalid_passkey', 'The passkey could not be verified; try again');
}
