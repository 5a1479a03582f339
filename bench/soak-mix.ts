// The soak's request mix, as a busy day would use the service: 60 % reads, 25 % writes (profile
// saves with tags, job updates, chat, new jobs, invites and their acceptance), 10 % money
// (withdrawals, and escrows and collection payments carried through initiate → pay from the
// wallet → release once the watcher credited them) and 5 % logins. Flows pass their ids from one
// step to the next; a step whose input is not there yet gives way to another of its kind.
import { randomUUID } from 'node:crypto'

export interface FixtureUser {
  id: string
  email: string
  password: string
  token: string
}

export interface Fixture {
  users: FixtureUser[]
  /** jobs created at setup, never paid: read and updated during the run */
  jobs: { id: string; owner: number }[]
  /** conversations of a job with its talent: read and written */
  conversations: { id: string; users: string[] }[]
  /** skill tags the profile and job saves choose from (overlapping sets, as real users pick) */
  tags: string[]
}

export interface Op {
  name: string
  method: string
  path: string
  token?: string
  body?: unknown
  headers?: Record<string, string>
  /** the answer, for flows that carry an id forward */
  onAnswer?: (status: number, body: string) => void
}

interface Payable {
  kind: 'escrow' | 'collection'
  owner: number
  escrowId: string
  collectionId: string
}

const OUTSIDE = '0x000000000000000000000000000000000000dEaD'

export class Mix {
  readonly flows: Record<string, number> = {}
  #seq = 0
  #fresh: { id: string; owner: number }[] = []
  #invites: { id: string; recipient: number; job: string; owner: number }[] = []
  #assigned: { job: string; owner: number }[] = []
  #unpaid: Payable[] = []
  #paying: (Payable & { since: number })[] = []
  #releasable: Payable[] = []

  constructor(private readonly f: Fixture) {}

  next(): Op {
    const r = Math.random() * 100
    if (r < 60) return this.#read()
    if (r < 85) return this.#write()
    if (r < 95) return this.#money()
    return this.#login()
  }

  #count(flow: string) {
    this.flows[flow] = (this.flows[flow] ?? 0) + 1
  }
  #pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(Math.random() * xs.length)]!
  }
  #user() {
    const i = Math.floor(Math.random() * this.f.users.length)
    return { i, u: this.f.users[i]! }
  }
  #other(i: number) {
    const j = (i + 1 + Math.floor(Math.random() * (this.f.users.length - 1))) % this.f.users.length
    return { j, u: this.f.users[j]! }
  }
  #tags(n: number) {
    const start = Math.floor(Math.random() * this.f.tags.length)
    return Array.from({ length: n }, (_, k) => this.f.tags[(start + k * 3) % this.f.tags.length]!)
  }
  #parse(body: string): { data?: Record<string, unknown> } {
    try {
      return JSON.parse(body)
    } catch {
      return {}
    }
  }

  #read(): Op {
    const { i, u } = this.#user()
    // Payments waiting for the watcher's credit are looked at through their collection, as a
    // client shows a job's state: paid ones go on to their release.
    const waiting = this.#paying[0]
    if (waiting && performance.now() - waiting.since > 3000 && Math.random() < 0.3) {
      this.#paying.shift()
      const owner = this.f.users[waiting.owner]!
      return {
        name: 'GET /v1/collection/{id} (payment)',
        method: 'GET',
        path: `/v1/collection/${waiting.collectionId}`,
        token: owner.token,
        onAnswer: (status, body) => {
          if (status === 200 && this.#parse(body).data?.escrowPaid === true) {
            this.#releasable.push(waiting)
            this.#count('paid seen')
          } else this.#paying.push({ ...waiting, since: performance.now() })
        },
      }
    }
    const conversation = this.#pick(this.f.conversations)
    const job = this.#pick(this.f.jobs)
    const reads: [string, string][] = [
      ['GET /v1/account', '/v1/account'],
      ['GET /v1/wallet', '/v1/wallet'],
      ['GET /v1/collection/{id}', `/v1/collection/${job.id}`],
      ['GET /v1/collection', '/v1/collection?page=1'],
      ['GET /v1/notifications', '/v1/notifications/'],
      ['GET /v1/transaction', '/v1/transaction'],
      ['GET /v1/account/user/{id}', `/v1/account/user/${this.#other(i).u.id}`],
      ['GET /v1/invite', '/v1/invite'],
      ['GET /v1/feeds', '/v1/feeds/'],
      ['GET /v1/withdrawals', '/v1/withdrawals/'],
    ]
    if (conversation.users.includes(u.id))
      reads.push(['GET /v1/chat/{id}/messages', `/v1/chat/${conversation.id}/messages`])
    const [name, path] = this.#pick(reads)
    return { name, method: 'GET', path, token: u.token }
  }

  #write(): Op {
    const r = Math.random() * 100
    const { i, u } = this.#user()
    if (r < 30 || (r >= 75 && r < 90 && this.#fresh.length === 0) || (r >= 90 && this.#invites.length === 0))
      return {
        name: 'PATCH /v1/account/update (tags)',
        method: 'PATCH',
        path: '/v1/account/update',
        token: u.token,
        body: {
          profile: {
            bio: { title: `Soak ${this.#seq++}` },
            talent: { tags: this.#tags(3 + (this.#seq % 3)) },
          },
        },
      }
    if (r < 50) {
      const job = this.#pick(this.f.jobs)
      return {
        name: 'PATCH /v1/collection/{id}',
        method: 'PATCH',
        path: `/v1/collection/${job.id}`,
        token: this.f.users[job.owner]!.token,
        body: { description: `Updated ${this.#seq++}`, tags: this.#tags(2) },
      }
    }
    if (r < 65) {
      const c = this.#pick(this.f.conversations)
      const authorId = c.users[this.#seq++ % 2]
      const author = this.f.users.find((x) => x.id === authorId)!
      return {
        name: 'POST /v1/chat/{id}/messages',
        method: 'POST',
        path: `/v1/chat/${c.id}/messages`,
        token: author.token,
        body: { content: `message ${this.#seq}` },
      }
    }
    if (r < 75)
      return {
        name: 'POST /v1/collection',
        method: 'POST',
        path: '/v1/collection',
        token: u.token,
        body: {
          type: 'job',
          name: `Soak job ${this.#seq++}`,
          description: 'A job posted during the soak',
          isPrivate: false,
          paymentFee: 100,
          tags: this.#tags(2),
        },
        onAnswer: (status, body) => {
          const id = this.#parse(body).data?._id
          if (status === 200 && typeof id === 'string') this.#fresh.push({ id, owner: i })
        },
      }
    if (r < 90) {
      const job = this.#fresh.shift()!
      const owner = this.f.users[job.owner]!
      const { j, u: talent } = this.#other(job.owner)
      return {
        name: 'POST /v1/invite',
        method: 'POST',
        path: '/v1/invite',
        token: owner.token,
        body: { recipient: talent.id, collection: job.id },
        onAnswer: (status, body) => {
          const id = this.#parse(body).data?._id
          if (status === 200 && typeof id === 'string')
            this.#invites.push({ id, recipient: j, job: job.id, owner: job.owner })
        },
      }
    }
    const invite = this.#invites.shift()!
    return {
      name: 'POST /v1/invite/{id}/accept',
      method: 'POST',
      path: `/v1/invite/${invite.id}/accept`,
      token: this.f.users[invite.recipient]!.token,
      onAnswer: (status) => {
        if (status === 200) this.#assigned.push({ job: invite.job, owner: invite.owner })
      },
    }
  }

  #money(): Op {
    const key = { 'idempotency-key': randomUUID() }
    const releasable = this.#releasable.shift()
    if (Math.random() < 0.5) {
      if (releasable) this.#releasable.unshift(releasable)
      const { u } = this.#user()
      return {
        name: 'POST /v1/withdrawals',
        method: 'POST',
        path: '/v1/withdrawals/',
        token: u.token,
        headers: key,
        body: { amount: 0.1, coin: 'usdc', address: OUTSIDE, password: u.password },
        onAnswer: (status) => status === 200 && this.#count('withdrawals accepted'),
      }
    }
    if (releasable) {
      const owner = this.f.users[releasable.owner]!
      const done = (status: number) => status === 200 && this.#count(`${releasable.kind} released`)
      return releasable.kind === 'escrow'
        ? {
            name: 'POST /v1/escrow/release',
            method: 'POST',
            path: '/v1/escrow/release',
            token: owner.token,
            headers: key,
            body: { escrowId: releasable.escrowId },
            onAnswer: done,
          }
        : {
            name: 'POST /v1/payment/release',
            method: 'POST',
            path: '/v1/payment/release',
            token: owner.token,
            headers: key,
            body: { collection: releasable.collectionId, amount: 1 },
            onAnswer: done,
          }
    }
    const unpaid = this.#unpaid.shift()
    if (unpaid) {
      const owner = this.f.users[unpaid.owner]!
      return {
        name: 'POST /v1/escrow/pay',
        method: 'POST',
        path: '/v1/escrow/pay',
        token: owner.token,
        headers: key,
        body: { escrowId: unpaid.escrowId, password: owner.password },
        onAnswer: (status) => {
          if (status === 200) this.#paying.push({ ...unpaid, since: performance.now() })
        },
      }
    }
    const assigned = this.#assigned.shift()
    if (assigned) {
      const owner = this.f.users[assigned.owner]!
      return {
        name: 'POST /v1/payment',
        method: 'POST',
        path: '/v1/payment/',
        token: owner.token,
        headers: key,
        body: { coin: 'usdc', collection: assigned.job, usdValue: 1 },
        onAnswer: (status, body) => {
          const id = this.#parse(body).data?.escrowId
          if (status === 200 && typeof id === 'string')
            this.#unpaid.push({
              kind: 'collection',
              owner: assigned.owner,
              escrowId: id,
              collectionId: assigned.job,
            })
        },
      }
    }
    const { i, u } = this.#user()
    return {
      name: 'POST /v1/escrow/initiate',
      method: 'POST',
      path: '/v1/escrow/initiate',
      token: u.token,
      headers: key,
      body: {
        title: `Soak escrow ${this.#seq++}`,
        description: 'paid from the wallet during the soak',
        amount: 1,
        coin: 'usdc',
        receiverId: this.#other(i).u.id,
      },
      onAnswer: (status, body) => {
        const d = this.#parse(body).data
        if (status === 200 && typeof d?.escrowId === 'string' && typeof d.collectionId === 'string')
          this.#unpaid.push({ kind: 'escrow', owner: i, escrowId: d.escrowId, collectionId: d.collectionId })
      },
    }
  }

  #login(): Op {
    const { u } = this.#user()
    return {
      name: 'POST /v1/auth/login',
      method: 'POST',
      path: '/v1/auth/login',
      body: { email: u.email, password: u.password },
    }
  }
}
