// One JSON POST to a URL an integrator gave, made safe for a server that must not be turned against
// its own network: the host is resolved once, every address it resolves to is checked (production:
// public internet only), and the connection goes to a checked address itself (no second lookup
// an attacker's DNS could answer differently; the next checked address when one refuses the
// connection). TLS still verifies the certificate for the host
// name. Redirects are not followed, the whole call has a deadline, and only a short excerpt of
// the answer is read.
import { lookup as dnsLookup } from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { canonicalHost, isPublicAddress } from './addresses.ts'

export interface OutboundPolicy {
  /** only addresses on the public internet (production); otherwise any address (development, tests) */
  publicOnly: boolean
  /** only https URLs (production) */
  httpsOnly: boolean
  /** deadline of the whole call: resolving, connecting, sending and reading the answer */
  timeoutMs: number
  /** how much of the answer's body is read and kept (bytes) */
  excerptBytes?: number
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true })

export type PostResult =
  /** the receiver answered (any status) */
  | { kind: 'answered'; status: number; excerpt: string }
  /** the policy refused the URL or an address it resolves to; nothing was sent */
  | { kind: 'refused'; reason: string }
  /** no answer: resolution, connection or TLS failed, or the deadline passed */
  | { kind: 'failed'; reason: string }

/** The host name of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
}

/**
 * Resolves the URL's host and checks every address against the policy: the address to connect to,
 * or why the URL is refused.
 */
export async function resolveTarget(
  url: URL,
  policy: Pick<OutboundPolicy, 'publicOnly' | 'httpsOnly'>,
  resolve: Resolver = systemResolver,
): Promise<{ addresses: { address: string; family: number }[] } | { refused: string }> {
  if (url.protocol !== 'https:' && (policy.httpsOnly || url.protocol !== 'http:'))
    return { refused: `${url.protocol} URLs are not allowed; use https` }
  if (url.username || url.password) return { refused: 'URLs with credentials are not allowed' }
  // Resolved as the name it stands for: `localhost.` (fully qualified) is `localhost`.
  const host = canonicalHost(url)
  const literal = isIP(host)
  const addresses = literal ? [{ address: host, family: literal }] : await resolve(host)
  if (addresses.length === 0) return { refused: `${host} resolves to no address` }
  if (policy.publicOnly) {
    const bad = addresses.find((a) => !isPublicAddress(a.address))
    if (bad) return { refused: `${host} resolves to ${bad.address}, which is not a public address` }
  }
  return { addresses }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL among them) are not kept
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g

/** One address tried: a failure says whether the address could not be reached at all. */
type Attempt =
  | Exclude<PostResult, { kind: 'failed' }>
  | { kind: 'failed'; reason: string; unreachable: boolean }

/** Connection failures that prove nothing was sent: the next address may be tried. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT'])

/** POSTs `body` (JSON text) with `headers` to `urlText` under `policy`. Never throws. */
export async function postJson(
  urlText: string,
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  resolve: Resolver = systemResolver,
): Promise<PostResult> {
  const deadline = AbortSignal.timeout(policy.timeoutMs)
  let url: URL
  try {
    url = new URL(urlText)
  } catch {
    return { kind: 'refused', reason: 'not a valid URL' }
  }
  let target: Awaited<ReturnType<typeof resolveTarget>>
  try {
    target = await Promise.race([
      resolveTarget(url, policy, resolve),
      new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () => reject(new Error('timed out resolving the host'))),
      ),
    ])
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) }
  }
  if ('refused' in target) return { kind: 'refused', reason: target.refused }
  let result: Attempt = { kind: 'failed', reason: 'no address', unreachable: true }
  for (const address of target.addresses) {
    result = await send(url, address, body, headers, policy, deadline)
    if (result.kind !== 'failed' || !result.unreachable || deadline.aborted) break
  }
  if (result.kind === 'failed') return { kind: 'failed', reason: result.reason }
  return result
}

function send(
  url: URL,
  target: { address: string; family: number },
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  deadline: AbortSignal,
): Promise<Attempt> {
  const limit = policy.excerptBytes ?? 512
  const secure = url.protocol === 'https:'
  const host = hostOf(url)
  return new Promise((resolve) => {
    let settled = false
    const finish = (result: Attempt) => {
      if (settled) return
      settled = true
      deadline.removeEventListener('abort', onAbort)
      resolve(result)
    }
    const request = (secure ? https : http).request({
      method: 'POST',
      host: target.address,
      family: target.family,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers: {
        ...headers,
        host: url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      // the certificate is checked for the host name, not the address connected to
      ...(secure && !isIP(host) ? { servername: host } : {}),
      agent: false,
    })
    const onAbort = () => {
      request.destroy(new Error(`no answer within ${policy.timeoutMs} ms`))
    }
    deadline.addEventListener('abort', onAbort)
    request.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'failed', reason: err.message, unreachable: UNREACHABLE.has(err.code ?? '') }),
    )
    request.on('response', (res) => {
      const status = res.statusCode ?? 0
      const chunks: Buffer[] = []
      let size = 0
      const done = () => {
        const excerpt = Buffer.concat(chunks).subarray(0, limit).toString('utf8')
        finish({ kind: 'answered', status, excerpt: excerpt.replace(CONTROL, '') })
        res.destroy()
      }
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        size += chunk.length
        // enough read: the rest of the answer is never downloaded
        if (size >= limit) done()
      })
      res.on('end', done)
      res.on('error', done)
      res.on('close', done)
    })
    request.end(body)
  })
}
