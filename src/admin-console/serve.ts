// The operator console at /admin: static HTML, CSS and ES modules from ./public, served by the API
// process itself (no build step, no separate deployment). The files are read once at start-up and
// answered with a Content-Security-Policy that allows only this origin's scripts, styles and API
// calls: no inline script or style, no framing, no form posts elsewhere.
import { readdirSync, readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
}

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

interface Asset {
  body: Buffer
  type: string
}

function loadAssets(): Map<string, Asset> {
  const dir = new URL('./public/', import.meta.url)
  const assets = new Map<string, Asset>()
  for (const name of readdirSync(dir)) {
    const ext = name.slice(name.lastIndexOf('.'))
    const type = types[ext]
    if (type) assets.set(name, { body: readFileSync(new URL(name, dir)), type })
  }
  return assets
}

export async function adminConsole(app: FastifyInstance) {
  const assets = loadAssets()
  const send = (name: string) => {
    const asset = assets.get(name)
    return asset
  }
  const headers = {
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    // The files change only with a deployment; revalidating keeps a new release visible at once.
    'cache-control': 'no-cache',
  }
  const index = send('index.html')
  if (!index) throw new Error('the admin console files are missing (src/admin-console/public)')
  app.get('/admin', { schema: { hide: true } }, async (_req, reply) =>
    reply.headers(headers).type(index.type).send(index.body),
  )
  // Browsers ask every origin for /favicon.ico; the console's icon answers it (an SVG, which they
  // take from that path too).
  const icon = send('favicon.svg')
  if (icon)
    app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=86400' })
        .type(icon.type)
        .send(icon.body),
    )
  app.get<{ Params: { file: string } }>('/admin/:file', { schema: { hide: true } }, async (req, reply) => {
    const asset = send(req.params.file)
    if (!asset)
      return reply.code(404).send({ status: 'error', message: 'Not found', data: { code: 'NOT_FOUND' } })
    return reply.headers(headers).type(asset.type).send(asset.body)
  })
}
