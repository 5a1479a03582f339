// A software WebAuthn authenticator for API tests: a P-256 key per credential, answers built as a
// browser would (clientDataJSON, authenticator data with user presence and verification, a "none"
// attestation, an ECDSA signature), and a signature counter it moves on at each use unless told
// otherwise. The browser test uses Chromium's virtual authenticator instead.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto'
import { isoCBOR } from '@simplewebauthn/server/helpers'

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest()
const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url')

export interface SoftCredential {
  id: string
  privateKey: KeyObject
  counter: number
}

export class SoftAuthenticator {
  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {}

  /** Answers registration options (`navigator.credentials.create`) with a new credential. */
  create(options: { challenge: string; rp: { id?: string } }, o: { origin?: string; rpId?: string } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const jwk = publicKey.export({ format: 'jwk' })
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    )
    const credId = randomBytes(32)
    const counter = 0
    const authData = Buffer.concat([
      sha256(o.rpId ?? options.rp.id ?? this.rpId),
      Buffer.from([0x01 | 0x04 | 0x40]),
      u32(counter),
      Buffer.alloc(16),
      Buffer.from([credId.length >> 8, credId.length & 0xff]),
      credId,
      Buffer.from(cose),
    ])
    const clientData = this.#clientData('webauthn.create', options.challenge, o.origin)
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    )
    const credential: SoftCredential = { id: b64url(credId), privateKey, counter }
    return {
      credential,
      json: {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key' as const,
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientData),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
      },
    }
  }

  /**
   * Answers authentication options (`navigator.credentials.get`) with `credential`; the counter
   * moves on by one unless `counter` is given.
   */
  get(
    credential: SoftCredential,
    challenge: string,
    o: { origin?: string; rpId?: string; counter?: number; userVerified?: boolean } = {},
  ) {
    credential.counter = o.counter ?? credential.counter + 1
    const flags = 0x01 | (o.userVerified === false ? 0 : 0x04)
    const authData = Buffer.concat([
      sha256(o.rpId ?? this.rpId),
      Buffer.from([flags]),
      u32(credential.counter),
    ])
    const clientData = this.#clientData('webauthn.get', challenge, o.origin)
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey)
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: null,
      },
    }
  }

  #clientData(type: string, challenge: string, origin = this.origin) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }))
  }
}

function u32(n: number) {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n)
  return b
}
