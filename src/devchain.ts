// A standalone EVM development chain for container set-ups (compose.yaml): the same dev chain the
// embedded service runs in process (Hardhat's EDR, the built-in coins deployed at genesis, the
// platform treasury and gas wallet funded), served over JSON-RPC on DEVCHAIN_HOST:DEVCHAIN_PORT.
// It writes the coins file that API and worker processes read with EVM_RPC_URL (DEVCHAIN_COINS_OUT)
// and journals its state changes to DEVCHAIN_JOURNAL so a restart rebuilds the same chain.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createServer, connect as netConnect } from 'node:net'
import { dirname } from 'node:path'
import { ConfigError, type DevchainConfig, loadDevchainConfig } from './config.ts'
import { builtinCoinsConfig } from './platform/chain/coins-config.ts'
import { openDevnet } from './platform/chain/devnet.ts'
import type { ChainAdapter, DevnetJournal, DevnetJournalEntry } from './platform/chain/types.ts'

let config: DevchainConfig
try {
  config = loadDevchainConfig()
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(2)
}

const log = (msg: string, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ level: 30, time: Date.now(), msg, ...extra }))

/** One JSON line per state-changing call. */
function fileJournal(file: string): DevnetJournal {
  mkdirSync(dirname(file), { recursive: true })
  return {
    async load() {
      if (!existsSync(file)) return []
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as DevnetJournalEntry)
    },
    async append(entry) {
      appendFileSync(file, `${JSON.stringify(entry)}\n`)
    },
  }
}

function writeCoinsFile(chain: ChainAdapter, file: string) {
  const builtin = builtinCoinsConfig()
  const doc = {
    chain: { ...builtin.chain, rpcUrls: config.publicUrl ? [config.publicUrl] : [] },
    coins: chain.coins.map((c) => ({
      name: c.name,
      symbol: c.symbol,
      reference: c.reference,
      icon: c.icon,
      decimal: c.decimals,
      isToken: c.isToken,
      ...(c.contractAddress ? { contractAddress: c.contractAddress } : {}),
      order: c.order,
      active: c.active,
      usdRate: c.usdRate,
    })),
  }
  mkdirSync(dirname(file), { recursive: true })
  // renamed into place whole, so a reader never sees half a file
  writeFileSync(`${file}.tmp`, JSON.stringify(doc, null, 2))
  renameSync(`${file}.tmp`, file)
}

const chain = await openDevnet({
  ...builtinCoinsConfig(),
  ...(config.journalFile ? { journal: fileJournal(config.journalFile) } : {}),
  onWarning: (message) => log('replay warning', { warning: message }),
})
const inner = new URL(await chain.devnet!.listen(0))
// The devnet's own JSON-RPC server listens on loopback only; this relays DEVCHAIN_HOST:PORT to it.
const relay = createServer((socket) => {
  const upstream = netConnect(Number(inner.port), '127.0.0.1')
  socket.pipe(upstream).pipe(socket)
  socket.on('error', () => upstream.destroy())
  upstream.on('error', () => socket.destroy())
})
await new Promise<void>((resolve, reject) => {
  relay.once('error', reject)
  relay.listen(config.port, config.host, () => resolve())
})
const { port } = relay.address() as { port: number }
if (config.coinsOut) writeCoinsFile(chain, config.coinsOut)
log('devchain ready', {
  url: `http://${config.host}:${port}`,
  chainId: chain.chainId,
  block: Number(await chain.blockNumber()),
  coins: chain.coins.map((c) => ({ reference: c.reference, contractAddress: c.contractAddress })),
  coinsFile: config.coinsOut,
})

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    relay.close()
    await chain.close()
    log('devchain stopped', { signal })
    process.exit(0)
  })
