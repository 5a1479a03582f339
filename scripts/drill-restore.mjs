#!/usr/bin/env node
// The restore drill, end to end, as docs/operations.md (Restore drill) writes it, on scratch
// PostgreSQL databases of the server DRILL_DATABASE_URL names (default
// postgres://postgres@127.0.0.1:5432/postgres), against a standalone dev chain that plays the real
// chain (it lives on when the database is lost):
//
//   1. a chain, and the service on a source database: a user funded, a first withdrawal sent;
//   2. a logical backup while it serves (pg_dump -Fc);
//   3. after the backup: a withdrawal the service signs and sends, and a deposit it credits; then
//      the source is stopped (the database is "lost");
//   4. restore into a new database (createdb + pg_restore);
//   5. the restore report (npm run restore:check): the withdrawal must be listed as the platform's
//      own transaction the database does not know, the deposit as one after the backup;
//   6. npm run migrate (nothing to apply), npm run keys -- verify (every sealed key opens);
//   7. the service started on the copy: the watcher carries on from the backup's block, halts the
//      coin on the unknown withdrawal; an operator re-attaches it, resumes the coin and runs a
//      reconciliation, which must come out `ok`;
//   8. every ledger balance of the copy compared with the source's: equal.
//
// Prints each step with its duration, the recovery time (restore to reconciled copy) and the
// recovery point (what the backup did not hold: the span of writes after it), and exits 0 when
// every check held, 1 otherwise. Child processes and scratch databases are removed in every case.
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createWalletClient, defineChain, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const adminUrl = process.env.DRILL_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const work = mkdtempSync(join(tmpdir(), 'wp-drill-'))
const run = randomBytes(4).toString('hex')
const names = { source: `wp_drill_src_${run}`, copy: `wp_drill_copy_${run}` }
const urlOf = (name) => {
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return u.toString()
}
// Hardhat's dev accounts: #0 pays deposits from outside; #18 and #17 are the platform's treasury
// and gas wallet (compose.yaml's keys).
const OUTSIDER = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const TREASURY = '0xde9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0'
const GAS_WALLET = '0x689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd'
const ADMIN = { email: `drill-admin-${run}@example.com`, password: 'Dr1ll!restore' }
const USER = { email: `drill-user-${run}@example.com`, password: 'Dr1ll!restore' }
const SECRETS = {
  JWT_SECRET: 'drill-jwt-secret-drill-jwt-secret-0123456789',
  KEY_ENCRYPTION_KEY: '42'.repeat(32),
  // codes and file links have roots of their own, set as production sets them
  CODES_SECRET: 'drill-codes-secret-drill-codes-secret-0123',
  URL_SIGNING_SECRET: 'drill-url-secret-drill-url-secret-01234567',
}

const children = new Set()
/** processes that exited on their own (a crash) */
const crashed = []
const started = Date.now()
const timings = []
let failed = false

function say(line) {
  console.log(`[drill ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}`)
}

async function step(name, fn) {
  const t0 = Date.now()
  say(`${name} …`)
  const out = await fn()
  const ms = Date.now() - t0
  timings.push({ name, ms })
  say(`${name}: done in ${(ms / 1000).toFixed(1)} s`)
  return out
}

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`)
  say(`  ok: ${what}`)
}

/** A free port below the ephemeral range (a port the system hands out for `listen(0)` could go to
 * another listener of the same process before ours binds it). */
async function freePort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000)
    const free = await new Promise((resolve) => {
      const s = createServer()
      s.once('error', () => resolve(false))
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
    })
    if (free) return port
  }
}

async function waitFor(what, fn, timeoutMs = 60_000, everyMs = 200) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    for (const c of crashed)
      throw new Error(`${c.name} exited (${c.logFile}): ${readFileSync(c.logFile, 'utf8').slice(-1500)}`)
    try {
      const v = await fn()
      if (v) return v
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

async function sql(url, text, params = []) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, params)).rows
  } finally {
    await client.end()
  }
}

/** A process of the service's own code, its output kept in a log file: `src/main.ts` runs from
 * the compiled sources as `npm start` does (scripts/start.mjs), other entries through tsx. */
function startNode(name, args, env) {
  const logFile = join(work, `${name}.log`)
  const cmd =
    args[0] === 'src/main.ts' ? ['scripts/start.mjs', ...args.slice(1)] : ['--import', 'tsx', ...args]
  const out = spawn('sh', ['-c', `exec node ${cmd.join(' ')} >>"${logFile}" 2>&1`], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  })
  const exited = new Promise((resolve) => out.on('exit', (code, signal) => resolve({ code, signal })))
  const child = { name, process: out, exited, logFile }
  children.add(child)
  exited.then(() => {
    if (children.has(child) && !child.stopping) crashed.push(child)
    children.delete(child)
  })
  return child
}

async function stop(child) {
  if (!children.has(child)) return
  child.stopping = true
  child.process.kill('SIGTERM')
  const t = setTimeout(() => child.process.kill('SIGKILL'), 20_000)
  await child.exited
  clearTimeout(t)
}

/** Runs a command of the service to its end; answers its output (stdout). */
function runNode(args, env) {
  const res = spawnSync('node', ['--import', 'tsx', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (res.status !== 0)
    throw new Error(
      `${args.join(' ')} exited ${res.status}: ${res.stderr.slice(-2000)}${res.stdout.slice(-2000)}`,
    )
  return res.stdout
}

function runTool(cmd, args) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000 })
  if (res.status !== 0) throw new Error(`${cmd} exited ${res.status}: ${res.stderr}`)
  return res.stdout
}

async function api(base, method, path, { token, body } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  const json = await res.json().catch(() => ({}))
  return { status: res.status, json }
}

async function expectApi(base, method, path, opts, status = 200) {
  const res = await api(base, method, path, opts)
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`)
  return res.json.data
}

async function lastCode(dbUrl, email) {
  return waitFor(`a code mailed to ${email}`, async () => {
    const [row] = await sql(
      dbUrl,
      'select text from mails where to_address = $1 order by created_at desc, id desc limit 1',
      [email],
    )
    return row?.text.match(/\b(\d{6})\b/)?.[1]
  })
}

async function signUp(base, dbUrl, who) {
  const reg = await expectApi(
    base,
    'POST',
    '/v1/auth/create-account',
    {
      body: {
        firstName: 'Drill',
        lastName: 'Person',
        email: who.email,
        password: who.password,
        confirmPassword: who.password,
      },
    },
    202,
  )
  const code = await lastCode(dbUrl, who.email)
  const ver = await expectApi(base, 'POST', '/v1/auth/account/verify', {
    body: { token: code, tempToken: reg.tempToken.token },
  })
  return ver.token
}

async function signIn(base, who) {
  return (
    await expectApi(base, 'POST', '/v1/auth/login', { body: { email: who.email, password: who.password } })
  ).token
}

/** An elevated operator session: the admin's token stepped up with a mailed code. */
async function elevate(base, dbUrl, token) {
  const before = (
    await sql(dbUrl, 'select count(*)::int as n from mails where to_address = $1', [ADMIN.email])
  )[0].n
  await expectApi(base, 'POST', '/v1/admin/session/code', { token })
  await waitFor('the admin code', async () => {
    const [r] = await sql(dbUrl, 'select count(*)::int as n from mails where to_address = $1', [ADMIN.email])
    return r.n > before
  })
  const code = await lastCode(dbUrl, ADMIN.email)
  await expectApi(base, 'POST', '/v1/admin/session', { token, body: { code } })
}

async function withdrawal(base, token, amount, address) {
  return (
    await expectApi(base, 'POST', '/v1/withdrawals/', {
      token,
      body: { amount, coin: 'avax', address, password: USER.password },
    })
  ).withdrawalId
}

async function waitCompleted(dbUrl, id) {
  return waitFor(`withdrawal ${id} completed`, async () => {
    const [w] = await sql(dbUrl, 'select status, tx_hash from withdrawals where id = $1', [id])
    if (w?.status === 'failed') throw new Error(`withdrawal ${id} failed`)
    return w?.status === 'completed' ? w : undefined
  })
}

async function creditedDeposits(dbUrl, address) {
  const rows = await sql(
    dbUrl,
    "select tx_hash from chain_events where address = $1 and kind = 'deposit' and held is null and transfer_id is not null",
    [address],
  )
  return rows.map((r) => r.tx_hash)
}

async function balances(dbUrl) {
  const rows = await sql(dbUrl, 'select kind, owner_id, coin, balance::text as balance from ledger_accounts')
  return new Map(rows.map((r) => [`${r.kind}/${r.owner_id}/${r.coin}`, r.balance]))
}

async function main() {
  const chainPort = await freePort()
  const coinsFile = join(work, 'coins.json')
  const chainUrl = `http://127.0.0.1:${chainPort}`
  const base = {
    ...SECRETS,
    EVM_RPC_URL: chainUrl,
    COINS_FILE: coinsFile,
    TREASURY_PRIVATE_KEY: TREASURY,
    GAS_WALLET_PRIVATE_KEY: GAS_WALLET,
    ADMIN_EMAILS: ADMIN.email,
    // the drill's operator steps up with a mailed code (production operators use an authenticator)
    ADMIN_SECOND_FACTOR: 'totp-or-email',
    LOG_LEVEL: 'warn',
    DATA_DIR: join(work, 'data'),
    RATE_LIMIT_AUTH_PER_IP: '100000',
    RATE_LIMIT_AUTH_PER_EMAIL: '100000',
  }
  const sourceUrl = urlOf(names.source)
  const copyUrl = urlOf(names.copy)
  const sourcePort = await freePort()
  const copyPort = await freePort()
  const source = `http://127.0.0.1:${sourcePort}`
  const copy = `http://127.0.0.1:${copyPort}`

  await step('1. the chain and the service on the source database', async () => {
    startNode('devchain', ['src/devchain.ts'], {
      DEVCHAIN_PORT: String(chainPort),
      DEVCHAIN_COINS_OUT: coinsFile,
      DEVCHAIN_JOURNAL: join(work, 'chain.jsonl'),
    })
    await sql(adminUrl, `create database ${names.source}`)
    await waitFor('the coins file', () => readFileSync(coinsFile, 'utf8').length > 0, 60_000)
    startNode('source', ['src/main.ts', 'all'], {
      ...base,
      DATABASE_URL: sourceUrl,
      PORT: String(sourcePort),
    })
    await waitFor('the source service', async () => (await fetch(`${source}/health`)).ok, 90_000)
  })

  const chain = defineChain({
    id: 31337,
    name: 'dev',
    nativeCurrency: { name: 'AVAX', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: [chainUrl] } },
  })
  const outsider = createWalletClient({
    account: privateKeyToAccount(OUTSIDER),
    chain,
    transport: http(chainUrl),
  })

  const { userToken, address } = await step(
    '   a user funded (1 AVAX) and a first withdrawal sent',
    async () => {
      const adminToken = await signUp(source, sourceUrl, ADMIN)
      void adminToken
      const userToken = await signUp(source, sourceUrl, USER)
      const wallet = await expectApi(source, 'GET', '/v1/wallet', { token: userToken })
      const address = wallet.wallets[0].address.toLowerCase()
      const hash = await outsider.sendTransaction({ to: address, value: parseEther('1') })
      await waitFor('the first deposit credited', async () =>
        (await creditedDeposits(sourceUrl, address)).includes(hash),
      )
      await waitCompleted(
        sourceUrl,
        await withdrawal(source, userToken, 0.01, privateKeyToAccount(`0x${'11'.repeat(32)}`).address),
      )
      return { userToken, address }
    },
  )

  const dump = join(work, 'workpay.dump')
  const backupAt = await step('2. logical backup while the service serves (pg_dump -Fc)', async () => {
    const at = Date.now()
    runTool('pg_dump', ['-Fc', '-f', dump, sourceUrl])
    return at
  })

  const after = await step(
    '3. after the backup: a withdrawal sent and a deposit credited; the source stops',
    async () => {
      const to = privateKeyToAccount(`0x${'22'.repeat(32)}`).address.toLowerCase()
      const w = await waitCompleted(sourceUrl, await withdrawal(source, userToken, 0.2, to))
      const deposit = await outsider.sendTransaction({ to: address, value: parseEther('0.3') })
      await waitFor('the later deposit credited', async () =>
        (await creditedDeposits(sourceUrl, address)).includes(deposit),
      )
      const lastWrite = Date.now()
      await stop([...children].find((c) => c.name === 'source'))
      return { withdrawalTx: w.tx_hash, deposit, lastWrite }
    },
  )

  const restoreStarted = Date.now()
  await step('4. restore into a new database (createdb + pg_restore)', async () => {
    await sql(adminUrl, `create database ${names.copy}`)
    runTool('pg_restore', ['--no-owner', '-d', copyUrl, dump])
  })

  await step('5. the restore report (restore:check)', async () => {
    const report = JSON.parse(
      runNode(['src/restore.ts', 'check', '--json'], { ...base, DATABASE_URL: copyUrl }),
    )
    for (const line of report.text) say(`  | ${line}`)
    check(
      report.chain.unknownPlatformTransfers.some((u) => u.txHash === after.withdrawalTx),
      'the withdrawal signed after the backup is listed as the platform’s own, unknown to the copy',
    )
    check(
      report.chain.deposits.some((d) => d.txHash === after.deposit),
      'the deposit after the backup is listed',
    )
  })

  await step('6. migrate and verify the keys', async () => {
    const migrate = spawnSync('node', ['scripts/start.mjs', 'migrate'], {
      cwd: root,
      env: { ...process.env, ...base, LOG_LEVEL: 'info', DATABASE_URL: copyUrl },
      encoding: 'utf8',
    })
    check(migrate.status === 0 && /up to date/.test(migrate.stdout + migrate.stderr), 'migrate: up to date')
    const verify = runNode(['src/keys.ts', 'verify'], { ...base, DATABASE_URL: copyUrl })
    check(/, 0 do not open/.test(verify), `keys verify: ${verify.trim()}`)
  })

  await step('7. the service on the copy; re-attach, resume, reconcile', async () => {
    startNode('copy', ['src/main.ts', 'all'], { ...base, DATABASE_URL: copyUrl, PORT: String(copyPort) })
    await waitFor('the copy serving', async () => (await fetch(`${copy}/health`)).ok, 90_000)
    await waitFor('the unknown withdrawal halting avax', async () => {
      const [h] = await sql(
        copyUrl,
        "select reason from coin_halts where coin = 'avax' and cleared_at is null",
      )
      return h?.reason === 'unknown_platform_transfer'
    })
    const token = await signIn(copy, ADMIN)
    await elevate(copy, copyUrl, token)
    const page = await expectApi(copy, 'GET', '/v1/admin/platform-transfers?status=open', { token })
    const finding = page.data.find((f) => f.txHash === after.withdrawalTx)
    check(finding !== undefined, 'the console lists the unknown withdrawal')
    const reason = 'restore drill: the withdrawal signed after the backup'
    await expectApi(copy, 'POST', `/v1/admin/platform-transfers/${finding._id}/reattach`, {
      token,
      body: { reason },
    })
    await expectApi(copy, 'POST', '/v1/admin/coins/avax/resume', { token, body: { reason } })
    await waitFor('the later deposit credited on the copy', async () =>
      (await creditedDeposits(copyUrl, address)).includes(after.deposit),
    )
    await waitFor('the re-attached withdrawal completed', async () => {
      const [w] = await sql(copyUrl, 'select status from withdrawals where tx_hash = $1', [
        after.withdrawalTx,
      ])
      return w?.status === 'completed'
    })
    const runAt = Date.now()
    await expectApi(copy, 'POST', '/v1/admin/reconciliation/run', { token, body: { reason } })
    const run = await waitFor('a reconciliation run', async () => {
      const [r] = await sql(
        copyUrl,
        'select status from reconciliation_runs where started_at >= $1 order by started_at desc limit 1',
        [new Date(runAt - 1000)],
      )
      return r
    })
    check(run.status === 'ok', `reconciliation of the copy: ${run.status}`)
  })
  const recovered = Date.now()

  await step('8. compare every ledger balance with the source', async () => {
    const [src, dst] = await Promise.all([balances(sourceUrl), balances(copyUrl)])
    const differ = []
    for (const key of new Set([...src.keys(), ...dst.keys()]))
      if ((src.get(key) ?? '0') !== (dst.get(key) ?? '0'))
        differ.push(`${key}: source ${src.get(key) ?? '-'}, copy ${dst.get(key) ?? '-'}`)
    for (const d of differ) say(`  differs: ${d}`)
    check(differ.length === 0, `all ${src.size} ledger balances equal the source's`)
    const deposits = (await creditedDeposits(copyUrl, address)).filter((h) => h === after.deposit)
    check(deposits.length === 1, 'the deposit after the backup was credited once')
  })

  say(`recovery time (restore to reconciled copy): ${((recovered - restoreStarted) / 1000).toFixed(1)} s`)
  say(
    `recovery point (writes after the backup, lost with the source): ${((after.lastWrite - backupAt) / 1000).toFixed(1)} s`,
  )
}

async function cleanup() {
  for (const child of [...children].reverse()) await stop(child)
  for (const name of Object.values(names))
    await sql(adminUrl, `drop database if exists ${name} with (force)`).catch((err) =>
      say(`could not drop ${name}: ${err.message}`),
    )
  if (failed) say(`logs kept in ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    failed = true
    cleanup().finally(() => process.exit(130))
  })

try {
  await main()
  say('restore drill passed')
} catch (err) {
  failed = true
  say(`restore drill FAILED: ${err.message}`)
}
await cleanup()
process.exit(failed ? 1 : 0)
