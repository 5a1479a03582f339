// CPU time a measured case costs: this process's own (the service, in-process), and PostgreSQL's
// when its server runs on this machine (the `postgres` processes in Linux's /proc, at the usual
// 100 clock ticks per second). On 2 cores shared by both, the sum per operation bounds the rate.
import { existsSync, readdirSync, readFileSync } from 'node:fs'

const TICK_US = 10_000

function postgresTicks(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined
  let ticks = 0
  let seen = false
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      continue // gone meanwhile
    }
    if (!stat.includes(' (postgres) ')) continue
    // After the command's closing parenthesis: state, then … utime (14th field), stime (15th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    ticks += Number(fields[11]) + Number(fields[12])
    seen = true
  }
  return seen ? ticks : undefined
}

/**
 * Starts measuring; the function returned gives the microseconds spent since, per `count`.
 * `postgres`: the service talks to a PostgreSQL server (the embedded database runs inside this
 * process, and its work is the service's).
 */
export function cpuMeter(postgres: boolean): (count: number) => Record<string, number> {
  const service = process.cpuUsage()
  const database = postgres ? postgresTicks() : undefined
  return (count) => {
    const used = process.cpuUsage(service)
    const out: Record<string, number> = {
      serviceCpuUs: Math.round((used.user + used.system) / count),
      serviceSysUs: Math.round(used.system / count),
    }
    const now = database === undefined ? undefined : postgresTicks()
    if (now !== undefined) out.databaseCpuUs = Math.round(((now - database!) * TICK_US) / count)
    return out
  }
}
