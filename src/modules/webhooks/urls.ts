// Which URLs an endpoint may be registered with. Production: https only, no credentials, and no
// host that is plainly not on the public internet (an IP literal of a private, loopback or
// link-local range, `localhost`, `.local`, `.internal`); what a name resolves to is checked again
// at every delivery (src/platform/outbound/post.ts), since DNS answers change. Development and
// tests also take http://localhost (127.0.0.1, [::1]) so that a local receiver can be used.
import { isIP } from 'node:net'
import { errors } from '../../http/errors.ts'
import { canonicalHost, isPublicAddress } from '../../platform/outbound/addresses.ts'

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1'])

/** The URL to store, or a 400 naming `path`. */
export function checkEndpointUrl(text: string, production: boolean, path = '/url'): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw errors.field(path, 'must be an absolute https URL')
  }
  // What the name resolves to: `LOCALHOST.`, `%6Cocalhost` and `localhost` are one host.
  const host = canonicalHost(url)
  const loopback = LOOPBACK_NAMES.has(host)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && !production))
    throw errors.field(
      path,
      production ? 'must be an https URL' : 'must be an https URL (http only for localhost in development)',
    )
  if (url.username || url.password) throw errors.field(path, 'must not carry a user name or password')
  if (url.hash) throw errors.field(path, 'must not have a #fragment')
  if (production) {
    const internal =
      host === '' ||
      host === 'localhost' ||
      /\.(localhost|local|internal|localdomain|home\.arpa)$/.test(host) ||
      (isIP(host) !== 0 && !isPublicAddress(host)) ||
      (isIP(host) === 0 && !host.includes('.'))
    if (internal) throw errors.field(path, 'must point to a host on the public internet')
  }
  return url.toString()
}
