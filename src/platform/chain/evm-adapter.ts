// The ChainAdapter over any viem PublicClient: the devnet and the JSON-RPC adapter differ only in
// the transport they hand in, so both run exactly this code.
import {
  type Address,
  type Chain,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hash,
  type Hex,
  isAddress,
  keccak256,
  type PublicClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { coinRegistry } from './coin-registry.ts'
import { isAlreadyKnown, isRevert, toChainError } from './errors.ts'
import { transferScans } from './evm-transfers.ts'
import { estimateFeesFromHistory } from './fee-history.ts'
import { headReader } from './heads.ts'
import { readTokenInfo } from './token-info.ts'
import {
  type ChainAdapter,
  type ChainBlock,
  type ChainCoin,
  ChainError,
  type ChainInfo,
  type ChainKind,
  type ChainSigner,
  type DevnetControls,
  type FeeEstimate,
  type SignedTransfer,
  type TransferReceipt,
  type TransferRequest,
} from './types.ts'

const NATIVE_TRANSFER_GAS = 21_000n

export interface EvmAdapterOptions {
  kind: ChainKind
  chain: Chain
  info: ChainInfo
  client: PublicClient
  /**
   * each provider on its own (EVM_RPC_URLS), for their heads and second opinions; default: the
   * client alone
   */
  providers?: readonly PublicClient[]
  /** told when providers lag or a head went backwards (logged by the caller) */
  onHeadWarning?: (message: string, details: Record<string, unknown>) => void
  coins: ChainCoin[]
  treasuryKey: Hex
  gasWalletKey: Hex
  devnet?: DevnetControls
  onClose?: () => Promise<void>
}

function checkAddress(value: string, what: string): Address {
  if (!isAddress(value, { strict: false }))
    throw new ChainError('INVALID_ARGUMENT', `${what} is not a valid address`)
  return getAddress(value)
}

function accountOf(privateKey: Hex) {
  if (typeof privateKey !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(privateKey))
    throw new ChainError('INVALID_ARGUMENT', 'malformed private key')
  try {
    return privateKeyToAccount(privateKey)
  } catch {
    throw new ChainError('INVALID_ARGUMENT', 'malformed private key')
  }
}

const maxFeeOf = (fees: FeeEstimate, gas: bigint) =>
  gas * (fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice)

export function createEvmAdapter(opts: EvmAdapterOptions): ChainAdapter {
  const { client, chain } = opts
  const providers = opts.providers?.length ? opts.providers : [client]
  const registry = coinRegistry(opts.coins)
  const { coins, byToken, coin } = registry

  /** runs a node call, mapping its failure to a ChainError */
  async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      throw toChainError(err, what)
    }
  }

  async function balanceOf(address: string, reference: string, blockNumber?: bigint): Promise<bigint> {
    const c = coin(reference)
    const who = checkAddress(address, 'address')
    const at = blockNumber === undefined ? {} : { blockNumber }
    if (!c.isToken) return call('balance', () => client.getBalance({ address: who, ...at }))
    return call('token balance', () =>
      client.readContract({
        address: c.contractAddress!,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [who],
        ...at,
      }),
    )
  }

  async function getBlock(number: bigint): Promise<ChainBlock | null> {
    const block = await call('get block', async () => {
      try {
        return await client.getBlock({ blockNumber: number, includeTransactions: true })
      } catch (err) {
        if ((err as Error).name === 'BlockNotFoundError') return null
        throw err
      }
    })
    if (!block || block.number === null || block.hash === null) return null
    return {
      number: block.number,
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: block.timestamp,
      ...(block.logsBloom ? { logsBloom: block.logsBloom } : {}),
      transactions: block.transactions.map((tx) => ({
        hash: tx.hash,
        from: getAddress(tx.from),
        to: tx.to ? getAddress(tx.to) : null,
        value: tx.value,
        nonce: tx.nonce,
        input: tx.input,
        blockNumber: block.number!,
      })),
    }
  }

  async function getReceipt(hash: Hash): Promise<TransferReceipt | null> {
    const r = await call('get receipt', async () => {
      try {
        return await client.getTransactionReceipt({ hash })
      } catch (err) {
        if ((err as Error).name === 'TransactionReceiptNotFoundError') return null
        throw err
      }
    })
    if (!r) return null
    return {
      hash: r.transactionHash,
      status: r.status,
      blockNumber: r.blockNumber,
      blockHash: r.blockHash,
      from: getAddress(r.from),
      to: r.to ? getAddress(r.to) : null,
      logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
      gasUsed: r.gasUsed,
      effectiveGasPrice: r.effectiveGasPrice,
      fee: r.gasUsed * r.effectiveGasPrice,
    }
  }

  async function estimateFees(): Promise<FeeEstimate> {
    return call('estimate fees', () => estimateFeesFromHistory(client))
  }

  async function estimateTransferGas(reference: string, from: string, to: string, amount: bigint) {
    const c = coin(reference)
    if (!c.isToken) return NATIVE_TRANSFER_GAS
    const account = checkAddress(from, 'from')
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [checkAddress(to, 'to'), amount],
    })
    let gas: bigint
    try {
      gas = await client.estimateGas({ account, to: c.contractAddress!, data })
    } catch (err) {
      const mapped = toChainError(err, 'estimate gas')
      if (mapped.code === 'UNAVAILABLE') throw mapped
      // Only the node's own word makes it a revert; any other answer is passed on as it is.
      if (!isRevert(err)) throw mapped
      // the node simulates the transfer: it fails when the sender lacks the tokens
      if ((await balanceOf(account, c.reference)) < amount)
        throw new ChainError(
          'INSUFFICIENT_FUNDS',
          `estimate gas: the sender holds less ${c.symbol} than the amount`,
        )
      throw new ChainError('REJECTED', 'estimate gas: the token transfer would revert', false, {
        cause: mapped.cause,
      })
    }
    return (gas * 12n) / 10n
  }

  async function getNonce(address: string, blockTag: 'pending' | 'latest' = 'pending'): Promise<number> {
    const who = checkAddress(address, 'address')
    return call('get nonce', () => client.getTransactionCount({ address: who, blockTag }))
  }

  async function signTransfer(privateKey: Hex, req: TransferRequest): Promise<SignedTransfer> {
    const account = accountOf(privateKey)
    const c = coin(req.coin)
    const to = checkAddress(req.to, 'to')
    if (typeof req.amount !== 'bigint' || req.amount < 0n)
      throw new ChainError('INVALID_ARGUMENT', 'amount must be a non-negative bigint')
    if (!Number.isSafeInteger(req.nonce) || req.nonce < 0)
      throw new ChainError('INVALID_ARGUMENT', 'nonce must be a non-negative integer')
    const fees = req.fees ?? (await estimateFees())
    const gas = req.gas ?? (await estimateTransferGas(c.reference, account.address, to, req.amount))
    const base = c.isToken
      ? {
          to: c.contractAddress!,
          value: 0n,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, req.amount] }),
        }
      : { to, value: req.amount, data: '0x' as Hex }
    const raw =
      fees.type === 'eip1559'
        ? await account.signTransaction({
            ...base,
            type: 'eip1559',
            chainId: chain.id,
            nonce: req.nonce,
            gas,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          })
        : await account.signTransaction({
            ...base,
            type: 'legacy',
            chainId: chain.id,
            nonce: req.nonce,
            gas,
            gasPrice: fees.gasPrice,
          })
    return {
      raw,
      hash: keccak256(raw),
      from: account.address,
      to,
      coin: c.reference,
      amount: req.amount,
      nonce: req.nonce,
      gas,
      fees,
      maxFee: maxFeeOf(fees, gas),
    }
  }

  async function knownTransaction(hash: Hash): Promise<boolean> {
    try {
      await client.getTransaction({ hash })
      return true
    } catch (err) {
      if ((err as Error).name === 'TransactionNotFoundError') return false
      throw toChainError(err, 'look up transaction')
    }
  }

  async function broadcast(raw: Hex): Promise<Hash> {
    if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]+$/.test(raw))
      throw new ChainError('INVALID_ARGUMENT', 'raw transaction must be 0x-prefixed hex')
    const hash = keccak256(raw)
    try {
      await client.sendRawTransaction({ serializedTransaction: raw })
      return hash
    } catch (err) {
      if (isAlreadyKnown(err)) return hash
      const mapped = toChainError(err, 'broadcast')
      // A node that already mined this very transaction answers "nonce too low": that is success.
      if (mapped.code === 'NONCE_TOO_LOW' && (await knownTransaction(hash))) return hash
      throw mapped
    }
  }

  async function waitForReceipt(hash: Hash, o: { timeoutMs?: number; pollMs?: number } = {}) {
    const deadline = Date.now() + (o.timeoutMs ?? 30_000)
    for (;;) {
      const r = await getReceipt(hash)
      if (r) return r
      if (Date.now() >= deadline) throw new ChainError('UNAVAILABLE', 'timed out waiting for the receipt')
      await new Promise((res) => setTimeout(res, o.pollMs ?? 250))
    }
  }

  const confirmedHead = headReader(providers, opts.onHeadWarning)

  const { nativeTransfers, tokenTransfers, verifiedTokenTransfers } = transferScans({
    client,
    providers,
    coins,
    byToken,
    coin,
    call,
    getBlock,
    getReceipt,
  })

  function signer(privateKey: Hex): ChainSigner {
    const address = accountOf(privateKey).address
    const sign = async (req: Omit<TransferRequest, 'nonce'> & { nonce?: number }) =>
      signTransfer(privateKey, { ...req, nonce: req.nonce ?? (await getNonce(address, 'pending')) })
    return {
      address,
      signTransfer: sign,
      async send(req) {
        const signed = await sign(req)
        await broadcast(signed.raw)
        return signed
      },
    }
  }

  let closed = false
  const adapter: ChainAdapter = {
    kind: opts.kind,
    chainId: chain.id,
    chain,
    get info() {
      return opts.info
    },
    client,
    coins,
    coin,
    addToken: (c: ChainCoin) => registry.add(c),
    tokenInfo: async (address) => readTokenInfo(client, checkAddress(address, 'address')),
    balanceOf,
    async balances(address) {
      const entries = await Promise.all(
        coins.map(async (c) => [c.reference, await balanceOf(address, c.reference)] as const),
      )
      return Object.fromEntries(entries)
    },
    blockNumber: () => call('block number', () => client.getBlockNumber({ cacheTime: 0 })),
    confirmedHead,
    getBlock,
    nativeTransfers,
    tokenTransfers,
    verifiedTokenTransfers,
    estimateFees,
    estimateTransferGas,
    getNonce,
    addressOf: (privateKey) => accountOf(privateKey).address,
    signTransfer,
    broadcast,
    getReceipt,
    waitForReceipt,
    async receiptDetails(hash) {
      const full = await call('get receipt', () => client.getTransactionReceipt({ hash }))
      return {
        transactionHash: full.transactionHash,
        blockNumber: full.blockNumber,
        blockHash: full.blockHash,
        from: full.from,
        to: full.to,
        status: full.status,
        gasUsed: full.gasUsed,
        effectiveGasPrice: full.effectiveGasPrice,
        logs: full.logs.map((l) => ({
          address: l.address,
          topics: l.topics,
          data: l.data,
          logIndex: l.logIndex,
        })),
      }
    },
    async isContract(address) {
      const code = await call('get code', () => client.getCode({ address: checkAddress(address, 'address') }))
      return !!code && code !== '0x'
    },
    async estimateValueGas(from, to, value) {
      try {
        return await client.estimateGas({
          account: checkAddress(from, 'from'),
          to: checkAddress(to, 'to'),
          value,
        })
      } catch (err) {
        const e = toChainError(err, 'estimate gas')
        if (e.code === 'UNAVAILABLE' || !isRevert(err)) throw e
        throw new ChainError('REJECTED', 'estimate gas: the recipient contract refuses the transfer', false)
      }
    },
    verifySignature: (address, message, signature) =>
      call('verify signature', () => client.verifyMessage({ address, message, signature })),
    treasury: signer(opts.treasuryKey),
    gasWallet: signer(opts.gasWalletKey),
    ...(opts.devnet ? { devnet: opts.devnet } : {}),
    async close() {
      if (closed) return
      closed = true
      await opts.onClose?.()
    },
  }
  return adapter
}
