// The images of a verification as the SDK sends them: base64 text (or a data URL) decoded, its size
// checked and its type recognised from the bytes (JPEG, PNG or WebP), never taken from the client.
import { AppError, errors } from '../../http/errors.ts'

export interface DecodedImage {
  bytes: Buffer
  mime: 'image/jpeg' | 'image/png' | 'image/webp'
  ext: 'jpg' | 'png' | 'webp'
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const DATA_URL = /^data:([\w.+/-]*)(;[\w=.-]+)*;base64,/

export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const

/** The image type of `bytes` from its magic number, or undefined. */
export function imageTypeOf(bytes: Buffer): Pick<DecodedImage, 'mime' | 'ext'> | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { mime: 'image/jpeg', ext: 'jpg' }
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return { mime: 'image/png', ext: 'png' }
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return { mime: 'image/webp', ext: 'webp' }
  return undefined
}

/** Decodes the `file.content` of a media upload: 400 when it is not base64, 413 when too large,
 * 415 when the bytes are not a JPEG, PNG or WebP image. */
export function decodeImage(content: string, maxBytes: number): DecodedImage {
  const text = content.replace(DATA_URL, '').replace(/\s+/g, '')
  if (text.length === 0 || text.length % 4 === 1 || !BASE64.test(text))
    throw errors.field('/file/content', 'must be a base64-encoded image (or a data: URL)')
  // The decoded size is known from the length before decoding anything.
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  const size = Math.floor((text.length * 3) / 4) - padding
  if (size > maxBytes) throw errors.payloadTooLarge(maxBytes)
  const bytes = Buffer.from(text, 'base64')
  const type = imageTypeOf(bytes)
  if (!type)
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The image must be one of ${IMAGE_TYPES.join(', ')} (recognised from its bytes)`,
      { errors: [{ path: '/file/content', message: 'not a JPEG, PNG or WebP image' }] },
    )
  return { bytes, ...type }
}

/** The images a session needs before it is submitted: a passport has no back. */
export function requiredContexts(documentType: string): string[] {
  return documentType === 'PASSPORT'
    ? ['face', 'document-front']
    : ['face', 'document-front', 'document-back']
}
