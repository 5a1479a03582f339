// What may be uploaded: the type is detected from the bytes (magic numbers, or a text sniff),
// never taken from the client, and must be on the allow-list. Also the sanitising of the
// original file name.

export interface AllowedType {
  mime: string
  /** accepted extensions, the first is the canonical one */
  exts: readonly string[]
}

/** Types recognised by their magic numbers. */
const BINARY_TYPES: readonly AllowedType[] = [
  { mime: 'image/png', exts: ['png'] },
  { mime: 'image/jpeg', exts: ['jpg', 'jpeg', 'jpe'] },
  { mime: 'image/gif', exts: ['gif'] },
  { mime: 'image/webp', exts: ['webp'] },
  { mime: 'application/pdf', exts: ['pdf'] },
  { mime: 'application/zip', exts: ['zip'] },
  { mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', exts: ['docx'] },
  { mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', exts: ['xlsx'] },
  { mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', exts: ['pptx'] },
]

/** Text types: no magic number; UTF-8 text without control characters, typed by extension. */
const TEXT_TYPES: readonly AllowedType[] = [
  { mime: 'text/plain', exts: ['txt', 'text', 'log'] },
  { mime: 'text/csv', exts: ['csv'] },
  { mime: 'text/markdown', exts: ['md', 'markdown'] },
  { mime: 'application/json', exts: ['json'] },
]

export const ALLOWED_TYPES: readonly AllowedType[] = [...BINARY_TYPES, ...TEXT_TYPES]

/** Bytes read before deciding the type (what file-type needs for the formats above). */
export const SNIFF_BYTES = 4100

export interface Detected {
  mime: string
  ext: string
  /** text types are checked further while streaming (no NUL byte anywhere) */
  text: boolean
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
}

/** The client's extension when it belongs to the detected type, else the type's own. */
function pickExt(type: AllowedType, originalName: string): string {
  const given = extensionOf(originalName)
  return type.exts.includes(given) ? given : type.exts[0]!
}

// C0 controls other than tab, line feed, form feed and carriage return, and DEL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const BINARY_CONTROL = /[\x00-\x08\x0B\x0E-\x1F\x7F]/

function looksLikeText(head: Buffer, complete: boolean): boolean {
  try {
    // `stream: true` tolerates a multi-byte character cut at the end of an incomplete head.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete })
    return !BINARY_CONTROL.test(text)
  } catch {
    return false
  }
}

/**
 * The allowed type of content starting with `head`, or undefined when it is not allowed.
 * `complete` says whether `head` is the whole content.
 */
export async function detectType(
  head: Buffer,
  complete: boolean,
  originalName: string,
): Promise<Detected | undefined> {
  // A parser choking on hostile bytes means the content is not a type we accept.
  // Loaded on the first upload, not at start-up.
  const { fileTypeFromBuffer } = await import('file-type')
  const found = await fileTypeFromBuffer(head).catch(() => null)
  if (found) {
    const type = BINARY_TYPES.find((t) => t.mime === found.mime)
    return type ? { mime: type.mime, ext: pickExt(type, originalName), text: false } : undefined
  }
  if (!looksLikeText(head, complete)) return undefined
  const ext = extensionOf(originalName)
  let type = TEXT_TYPES.find((t) => t.exts.includes(ext)) ?? TEXT_TYPES[0]!
  // JSON is only called JSON when it at least starts like JSON.
  if (type.mime === 'application/json' && !/^\uFEFF?\s*[[{]/.test(head.toString('utf8')))
    type = TEXT_TYPES[0]!
  return { mime: type.mime, ext: pickExt(type, originalName), text: true }
}

export const MAX_ORIGINAL_NAME = 255

/**
 * The client's file name as kept in meta.originalName: the last path segment only, without
 * control or bidirectional-override characters, trimmed and at most 255 characters.
 */
export function sanitizeOriginalName(raw: string | undefined): string {
  let name = (raw ?? '').normalize('NFC')
  name = name.split(/[/\\]/).pop() ?? ''
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  name = name.replace(/[\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, '').trim()
  if (name === '.' || name === '..') name = ''
  const chars = Array.from(name)
  if (chars.length > MAX_ORIGINAL_NAME) {
    // Keep the extension visible when shortening.
    const ext = extensionOf(name)
    const tail = ext && ext.length <= 16 ? `.${ext}` : ''
    name = chars.slice(0, MAX_ORIGINAL_NAME - tail.length).join('') + tail
  }
  return name || 'file'
}
