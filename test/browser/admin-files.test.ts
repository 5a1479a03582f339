// The operator console's files as the service serves them: the page, its styles and modules with
// their types, a Content-Security-Policy without inline script or style, no framing, nothing
// outside the console's own folder, and the page not in the API document.
import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_CSP } from '../../src/admin-console/serve.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const dir = new URL('../../src/admin-console/public/', import.meta.url)

describe('/admin', () => {
  it('serves the page with a strict CSP, at /admin and /admin/', async () => {
    for (const url of ['/admin', '/admin/']) {
      const res = await t.req({ method: 'GET', url })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      const csp = String(res.headers['content-security-policy'])
      expect(csp).toBe(CONSOLE_CSP)
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("style-src 'self'")
      expect(csp).not.toContain('unsafe-inline')
      expect(csp).toContain("frame-ancestors 'none'")
      expect(res.headers['x-frame-options']).toBe('DENY')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.body).toContain('<script type="module" src="/admin/main.js"></script>')
    }
  })

  it('answers /favicon.ico with the console icon', async () => {
    const res = await t.req({ method: 'GET', url: '/favicon.ico' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/svg+xml')
    expect(res.body).toBe(readFileSync(new URL('favicon.svg', dir), 'utf8'))
    expect((await t.req({ method: 'GET', url: '/admin' })).body).toContain('href="/admin/favicon.svg"')
  })

  it('has no inline script, inline style or event handler attribute in any file', () => {
    for (const name of readdirSync(dir)) {
      const text = readFileSync(new URL(name, dir), 'utf8')
      if (name.endsWith('.html')) {
        expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
        expect(text).not.toMatch(/<style/)
        expect(text).not.toMatch(/\sstyle=/)
        expect(text).not.toMatch(/\son[a-z]+=/)
      }
      if (name.endsWith('.js')) {
        expect(text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
        expect(text).not.toMatch(/\blocalStorage\.|document\.cookie/)
      }
    }
  })

  it('serves each module, stylesheet and page with its type', async () => {
    for (const name of readdirSync(dir)) {
      const res = await t.req({ method: 'GET', url: `/admin/${name}` })
      expect(res.statusCode, name).toBe(200)
      if (name.endsWith('.svg')) {
        expect(res.headers['content-type']).toBe('image/svg+xml')
        expect(res.body).toBe(readFileSync(new URL(name, dir), 'utf8'))
        continue
      }
      const type = name.endsWith('.js') ? 'text/javascript' : name.endsWith('.css') ? 'text/css' : 'text/html'
      expect(res.headers['content-type']).toBe(`${type}; charset=utf-8`)
      expect(res.body).toBe(readFileSync(new URL(name, dir), 'utf8'))
    }
  })

  it('answers 404 in the envelope for anything else, the server code included', async () => {
    for (const url of [
      '/admin/nope.js',
      '/admin/serve.ts',
      '/admin/..%2Fserve.ts',
      '/admin/%2e%2e%2fconfig.ts',
    ]) {
      const res = await t.req({ method: 'GET', url })
      expect(res.statusCode, url).toBe(404)
      expect(res.json()).toMatchObject({ status: 'error', data: { code: 'NOT_FOUND' } })
    }
  })

  it('is not part of the API document', async () => {
    const doc = (await t.req({ method: 'GET', url: '/openapi.json' })).json()
    expect(Object.keys(doc.paths).filter((p) => p === '/admin' || p.startsWith('/admin/'))).toEqual([])
  })
})
