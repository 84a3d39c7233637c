/**
 * A passkey authenticator in software, for tests over HTTP: it makes a P-256 key, answers a
 * registration with a `none` attestation and a sign-in with a signature, as a browser would send
 * them. Unlike Chromium's virtual authenticator (test/browser/), it can answer with or without the
 * user verified (a PIN or a fingerprint, rather than a touch), so the server's rules on that can be
 * tested where the browser would refuse first.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_CREDENTIAL = 0x40;

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const uint = (value: number, bytes: number) => {
  const buffer = Buffer.alloc(bytes);
  buffer.writeUIntBE(value, 0, bytes);
  return buffer;
};

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  /** Whether its answers say the user was verified; a test may change it between answers. */
  userVerified: boolean;
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private counter = 0;

  constructor(
    private readonly origin: string,
    options: { userVerified?: boolean } = {},
  ) {
    this.userVerified = options.userVerified ?? true;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The answer `startRegistration` would give to these options. */
  register(options: { challenge: string }) {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const attested = Buffer.concat([
      Buffer.alloc(16),
      uint(this.credentialId.length, 2),
      this.credentialId,
      isoCBOR.encode(coseKey),
    ]);
    const authData = Buffer.concat([this.authData(ATTESTED_CREDENTIAL), attested]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer `startAuthentication` would give to these options. */
  authenticate(options: { challenge: string }) {
    this.counter += 1;
    const authData = this.authData(0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]),
      this.keys.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON, authenticatorData: b64url(authData), signature: b64url(signature) },
      clientExtensionResults: {},
    };
  }

  private authData(flags: number): Buffer {
    const rpIdHash = sha256(new URL(this.origin).hostname);
    return Buffer.concat([
      rpIdHash,
      uint(USER_PRESENT | (this.userVerified ? USER_VERIFIED : 0) | flags, 1),
      uint(this.counter, 4),
    ]);
  }

  private clientData(type: string, challenge: string): string {
    return b64url(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
