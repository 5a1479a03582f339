// Headless Debian Chromium for the browser tests (playwright-core drives it; Playwright gives each
// launch a fresh profile directory of its own), and a free loopback port for a page's server.
import { createServer } from 'node:net'
import { type Browser, chromium } from 'playwright-core'

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** A free loopback port: a document names the address it is served from (PUBLIC_URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
