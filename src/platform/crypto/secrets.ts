// Envelope encryption of secrets at rest (wallet private keys, TOTP secrets): each secret gets its
// own random data key, the data key is wrapped by the key-encryption key from configuration, both
// with AES-256-GCM. The stored text names the key id so the key-encryption key can be rotated.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

export interface SecretBox {
  seal(plaintext: string, associatedData?: string): string
  open(sealed: string, associatedData?: string): string
}

function gcmEncrypt(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(aad)
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body])
}

function gcmDecrypt(key: Buffer, blob: Buffer, aad: Buffer): Buffer {
  const iv = blob.subarray(0, 12)
  const tag = blob.subarray(12, 28)
  const decipher = createDecipheriv('aes-256-gcm', key, iv)
  decipher.setAAD(aad)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()])
}

/**
 * `keys` maps key ids to 32-byte keys; `currentKeyId` is used for new secrets, the others only to
 * open secrets sealed before a rotation.
 */
export function createSecretBox(keys: Record<string, Buffer>, currentKeyId: string): SecretBox {
  const current = keys[currentKeyId]
  if (current?.length !== 32) throw new Error('the current key-encryption key must be 32 bytes')
  return {
    seal(plaintext, associatedData = '') {
      const dataKey = randomBytes(32)
      const aad = Buffer.from(associatedData)
      const wrapped = gcmEncrypt(current, dataKey, Buffer.from(`kek:${currentKeyId}`))
      const body = gcmEncrypt(dataKey, Buffer.from(plaintext, 'utf8'), aad)
      return `v1.${currentKeyId}.${wrapped.toString('base64url')}.${body.toString('base64url')}`
    },
    open(sealed, associatedData = '') {
      const [version, keyId, wrapped, body] = sealed.split('.')
      if (version !== 'v1' || !keyId || !wrapped || !body) throw new Error('unknown sealed secret format')
      const kek = keys[keyId]
      if (!kek) throw new Error(`no key-encryption key with id ${keyId}`)
      const dataKey = gcmDecrypt(kek, Buffer.from(wrapped, 'base64url'), Buffer.from(`kek:${keyId}`))
      return gcmDecrypt(dataKey, Buffer.from(body, 'base64url'), Buffer.from(associatedData)).toString('utf8')
    },
  }
}
