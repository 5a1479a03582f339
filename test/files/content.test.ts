// Pure pieces of file storage: type detection, original-name sanitising, URL signing.
import { describe, expect, it } from 'vitest'
import { detectType, sanitizeOriginalName } from '../../src/modules/files/content.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { assertSafeKey } from '../../src/platform/storage/blob-store.ts'
import { UrlSigner } from '../../src/platform/storage/url-signer.ts'
import { ELF, GIF, jpegOf, PDF, PNG } from './support.ts'

describe('detectType', () => {
  it('recognises allowed binary types by their bytes, whatever the name says', async () => {
    expect(await detectType(PNG, true, 'x.txt')).toEqual({ mime: 'image/png', ext: 'png', text: false })
    expect(await detectType(GIF, true, 'x')).toEqual({ mime: 'image/gif', ext: 'gif', text: false })
    expect(await detectType(PDF, true, 'x.pdf')).toEqual({ mime: 'application/pdf', ext: 'pdf', text: false })
    // The client's extension is kept when it belongs to the type.
    expect((await detectType(jpegOf(100), true, 'x.JPEG'))?.ext).toBe('jpeg')
    expect((await detectType(jpegOf(100), true, 'x.exe'))?.ext).toBe('jpg')
  })

  it('refuses types off the allow-list and binary content that is not recognised', async () => {
    expect(await detectType(ELF, true, 'x.png')).toBeUndefined()
    expect(
      await detectType(
        Buffer.from('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff', 'latin1'),
        true,
        'a.png',
      ),
    ).toBeUndefined()
    expect(await detectType(Buffer.from([1, 2, 3, 4, 0, 0, 9]), true, 'a.txt')).toBeUndefined()
    expect(await detectType(Buffer.from([0xc3, 0x28]), true, 'a.txt')).toBeUndefined()
  })

  it('types text by extension, tolerating a character cut at the end of an incomplete head', async () => {
    expect(await detectType(Buffer.from('héllo\n'), true, 'a')).toEqual({
      mime: 'text/plain',
      ext: 'txt',
      text: true,
    })
    expect((await detectType(Buffer.from('a;b\n'), true, 'a.csv'))?.mime).toBe('text/csv')
    expect((await detectType(Buffer.from('# T\n'), true, 'r.md'))?.mime).toBe('text/markdown')
    expect((await detectType(Buffer.from(' [1]'), true, 'r.json'))?.mime).toBe('application/json')
    const cut = Buffer.from('ab€').subarray(0, 4)
    expect((await detectType(cut, false, 'a.txt'))?.mime).toBe('text/plain')
    expect(await detectType(cut, true, 'a.txt')).toBeUndefined()
  })
})

describe('sanitizeOriginalName', () => {
  it('keeps the last path segment without control or direction-override characters', () => {
    expect(sanitizeOriginalName('../../etc/passwd')).toBe('passwd')
    expect(sanitizeOriginalName('C:\\Users\\me\\cv.pdf')).toBe('cv.pdf')
    expect(sanitizeOriginalName('a\u0000b\r\n\u202Ec.png')).toBe('abc.png')
    expect(sanitizeOriginalName('  résumé.pdf  ')).toBe('résumé.pdf')
    expect(sanitizeOriginalName('..')).toBe('file')
    expect(sanitizeOriginalName('dir/')).toBe('file')
    expect(sanitizeOriginalName(undefined)).toBe('file')
  })

  it('shortens to 255 characters, keeping the extension', () => {
    const name = sanitizeOriginalName(`${'é'.repeat(300)}.docx`)
    expect(Array.from(name)).toHaveLength(255)
    expect(name.endsWith('é.docx')).toBe(true)
  })
})

describe('UrlSigner', () => {
  const key = 'private/0123456789abcdef01234567/3f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.png'

  it('accepts its own signature until it expires', () => {
    const clock = new ManualClock()
    const signer = new UrlSigner('s'.repeat(40), clock)
    const { expires, signature, kid } = signer.sign(key, 300)
    expect(expires).toBe(Math.floor(clock.now().getTime() / 1000) + 300)
    expect(kid).toMatch(/^[A-Za-z0-9_-]{8}$/)
    expect(signer.verify(key, String(expires), signature, kid)).toBe('valid')
    clock.advance(299_000)
    expect(signer.verify(key, String(expires), signature, kid)).toBe('valid')
    clock.advance(1_000)
    expect(signer.verify(key, String(expires), signature, kid)).toBe('expired')
  })

  it('refuses another key, another expiry, another secret, and malformed parameters', () => {
    const clock = new ManualClock()
    const signer = new UrlSigner('s'.repeat(40), clock)
    const { expires, signature, kid } = signer.sign(key, 300)
    expect(signer.verify(key.replace('.png', '.jpg'), String(expires), signature, kid)).toBe('invalid')
    expect(signer.verify(key, String(expires + 1), signature, kid)).toBe('invalid')
    // another secret knows no key of that id; and the right id with a forged signature is invalid
    const other = new UrlSigner('t'.repeat(40), clock)
    expect(other.verify(key, String(expires), signature, kid)).toBe('unknown-key')
    const forged = other.sign(key, 300)
    expect(signer.verify(key, String(forged.expires), forged.signature, kid)).toBe('invalid')
    expect(signer.verify(key, undefined, signature, kid)).toBe('invalid')
    expect(signer.verify(key, String(expires), undefined, kid)).toBe('invalid')
    expect(signer.verify(key, String(expires), signature, undefined)).toBe('invalid')
    expect(signer.verify(key, String(expires), signature, 'not a kid!')).toBe('invalid')
    expect(signer.verify(key, '1e12', signature, kid)).toBe('invalid')
    expect(signer.verify(key, String(expires), `${signature}=`, kid)).toBe('invalid')
    // An expired URL whose signature is wrong is reported as invalid, not as expired.
    clock.advance(400_000)
    expect(
      signer.verify(
        key,
        String(expires),
        signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
        kid,
      ),
    ).toBe('invalid')
  })
})

describe('assertSafeKey', () => {
  it('refuses keys that could leave the store’s directory', () => {
    expect(() => assertSafeKey('public/a/b.png')).not.toThrow()
    for (const bad of ['', '../x', 'public/../../x', 'public//x', '/abs', 'a/./b', 'a\\b', 'a/b c'])
      expect(() => assertSafeKey(bad), bad).toThrow()
  })
})
