// Live events fanned out to connected sockets: 1,000 WebSockets on GET /v1/live (50 users with
// 20 sockets each, as many devices; 200 in --quick), then rounds of one push to all 50 users,
// published the way the service publishes (pg_notify, delivered through the LISTEN connection to
// the hub). Latency is from just before the publish to each socket's receipt of the message.
// On PostgreSQL (BENCH_DATABASE_URL), a second case runs two API processes on one database with
// 10,000 sockets (500 with --quick) opened by load-generator children: bench/live-scale.ts.
import WebSocket from 'ws'
import { publishLive } from '../../src/modules/live/publish.ts'
import type { BenchContext, Scenario } from '../lib.ts'
import { liveScale } from '../live-scale.ts'

const USERS = 50

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    const timer = setTimeout(() => reject(new Error('socket did not become ready')), 30_000)
    ws.once('error', reject)
    ws.on('message', function first(raw) {
      if (JSON.parse(String(raw)).type !== 'ready') return
      clearTimeout(timer)
      ws.off('message', first)
      resolve(ws)
    })
  })
}

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const perUser = ctx.quick ? 4 : 20
  const rounds = ctx.quick ? 10 : 30
  const users = await ctx.createUsers(USERS)
  const wsBase = ctx.baseUrl.replace(/^http/, 'ws')
  const db = ctx.app.services.database.db

  const scale = ctx.quick
    ? { users: 50, perUser: 10, rounds: 4, settleMs: 500 }
    : { users: 1000, perUser: 10, rounds: 10 }
  const twoProcesses: Scenario[] = ctx.databaseUrl
    ? [
        {
          name: `two API processes, ${scale.users * scale.perUser} sockets (${scale.users} users × ${scale.perUser}), ${scale.rounds} pushes`,
          run: () => liveScale({ databaseUrl: ctx.databaseUrl!, loaders: 2, ...scale }),
        },
      ]
    : []

  return [
    ...twoProcesses,
    {
      name: `one push to ${USERS} users fanned out to ${USERS * perUser} sockets, ${rounds} rounds`,
      async run() {
        const sockets: WebSocket[] = []
        try {
          for (const u of users)
            for (let k = 0; k < perUser; k++)
              sockets.push(await open(`${wsBase}/v1/live?token=${encodeURIComponent(u.token)}`))
          const latencies: number[] = []
          let missing = 0
          for (let r = 0; r < rounds; r++) {
            let pending = sockets.length
            const done = new Promise<void>((resolve) => {
              const deadline = setTimeout(() => {
                missing += pending
                resolve()
              }, 10_000)
              for (const ws of sockets)
                ws.once('message', () => {
                  latencies.push(performance.now() - sentAt)
                  if (--pending === 0) {
                    clearTimeout(deadline)
                    resolve()
                  }
                })
            })
            const sentAt = performance.now()
            await publishLive(db, { userIds: users.map((u) => u.id), type: 'bench', data: { round: r } })
            await done
          }
          latencies.sort((a, b) => a - b)
          return {
            sockets: sockets.length,
            deliveries: latencies.length,
            missing,
            p50Ms: Number(percentile(latencies, 50).toFixed(1)),
            p99Ms: Number(percentile(latencies, 99).toFixed(1)),
            maxMs: Number((latencies.at(-1) ?? Number.NaN).toFixed(1)),
          }
        } finally {
          for (const ws of sockets) ws.terminate()
        }
      },
    },
  ]
}
