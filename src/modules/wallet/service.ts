// Custodial wallets, a read model over the ledger and settlement: the wallet views (#18, #19) of a
// user's custodial key (settlement's key store) and ledger balances, made on first use for accounts
// older than wallets, and the key export (#20). Settlement signs, registers and watches
// transactions itself; nothing here is called by it.

import type { Logger } from 'pino'
import { getAddress } from 'viem'
import type { Db, Tx } from '../../db/index.ts'
import type { ReadCache } from '../../db/read-cache.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { centsToNumber, formatUnits, unitsToCents, unitsToNumber } from '../../platform/money/index.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import type { ConfirmPassword } from '../account/types.ts'
import type { Coin, CoinService } from '../payment/types.ts'
import type { CustodialKey, KeyStore } from '../settlement/types.ts'
import { usableRate } from '../transactions/module.ts'
import type { WalletProvisioner } from './provision.ts'
import { walletRepo } from './repo.ts'

// An address's checksummed form (EIP-55, a keccak hash of it), worked out once per address: every
// wallet read shows it.
const checksums = new Map<string, string>()
const checksum = (address: string) => {
  let out = checksums.get(address)
  if (out === undefined) {
    if (checksums.size >= 10_000) checksums.clear()
    out = getAddress(address)
    checksums.set(address, out)
  }
  return out
}

/** What the wallet needs of the account service. */
export interface WalletAccounts {
  lockLiveUser(tx: Tx, userId: string): Promise<void>
  markWalletGenerated(tx: Tx, userId: string): Promise<void>
}

/** A user's custodial key (none yet: undefined) and wallet accounts with available balances. */
export type WalletRead = [CustodialKey | undefined, { id: string; coin: string; balance: string }[]]

/** What a wallet read is made of: a write to either empties the cached reads. */
export const WALLET_TABLES = ['wallet_keys', 'ledger_accounts'] as const

export class WalletService {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      log: Logger
      chain: ChainAdapter
      coins: CoinService
      rates: RateSource
      /** settlement's key store: the key export opens and flags the user's key */
      keys: Pick<KeyStore, 'privateKey' | 'markExported'>
      provisioner: WalletProvisioner
      accounts: WalletAccounts
      /** checks the code confirming a sensitive action (TOTP or the code mailed by #44) and runs
       * `then` in the transaction that uses it up */
      verifySensitiveCode: <T>(userId: string, code: string, then: (tx: Tx) => Promise<T>) => Promise<T>
      confirmPassword: ConfirmPassword
      /** a user's key and wallet balances, dropped by any write to them (see WALLET_TABLES) */
      balances?: ReadCache<WalletRead>
    },
  ) {}

  /**
   * The user's key and a wallet account for every active coin (`balance`: available, i.e. less
   * pending holds); created on first use for accounts
   * made before wallets existed (or for coins activated later).
   */
  async ensureUserWallet(userId: string): Promise<{
    key: CustodialKey
    accounts: { id: string; coin: string; balance: string }[]
    active: Coin[]
  }> {
    const { db, coins } = this.deps
    const active = await coins.list()
    // One query: the key and its wallet accounts (the hot path of every wallet read), or none
    // while the cached answer stands.
    const load = async (): Promise<WalletRead> => {
      const rows = await walletRepo.keyWithAccounts(db, userId)
      const first = rows[0]
      if (!first) return [undefined, []]
      const key: CustodialKey = {
        id: first.id,
        ownerKind: first.ownerKind,
        ownerId: first.ownerId,
        address: first.address,
        exportedAt: first.exportedAt,
      }
      const accounts = rows.flatMap((r) =>
        r.accountId && r.coin && r.available !== null
          ? [{ id: r.accountId, coin: r.coin, balance: r.available }]
          : [],
      )
      return [key, accounts]
    }
    const { balances } = this.deps
    const read = () => (balances ? balances.get(userId, load) : load())
    let [key, accounts] = await read()
    const complete = () => key && active.every((c) => accounts.some((a) => a.coin === c.reference))
    if (!complete()) {
      await db.transaction().execute(async (tx) => {
        await this.deps.accounts.lockLiveUser(tx, userId)
        await this.deps.provisioner.provision(
          tx,
          userId,
          active.map((c) => c.reference),
        )
        await this.deps.accounts.markWalletGenerated(tx, userId)
      })
      ;[key, accounts] = await read()
    }
    return { key: key!, accounts, active }
  }

  /**
   * The USD rate of each coin. The wallet views need one per coin: a coin the source cannot price
   * now (no answer, no price, or 0) is 503, as everywhere a rate is needed to answer.
   */
  async #rates(): Promise<(coin: string) => string> {
    let rates: Record<string, string>
    try {
      rates = await this.deps.rates.getRates()
    } catch (err) {
      this.deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'USD rates unavailable')
      throw errors.unavailable('USD rates are unavailable right now; try again shortly')
    }
    return (coin) => {
      const rate = usableRate(rates[coin])
      if (rate === null) throw errors.unavailable('USD rates are unavailable right now; try again shortly')
      return rate
    }
  }

  /** #18 */
  async getWallet(userId: string) {
    const [{ key, accounts, active }, rateOf] = await Promise.all([
      this.ensureUserWallet(userId),
      this.#rates(),
    ])
    const balance = new Map(accounts.map((a) => [a.coin, BigInt(a.balance)]))
    let total = 0n
    const address = checksum(key.address)
    const wallets = active.map((coin) => {
      const amount = balance.get(coin.reference) ?? 0n
      const cents = unitsToCents(amount, coin.decimals, rateOf(coin.reference))
      total += cents
      return {
        id: coin.reference,
        amount: formatUnits(amount, coin.decimals, 6),
        usdValue: centsToNumber(cents),
        address,
        coin: coin.symbol,
        icon: coin.icon,
      }
    })
    return { totalBalance: centsToNumber(total), value: centsToNumber(total), wallets }
  }

  /** #19: unknown or inactive coin → 400 VALIDATION_ERROR (from the coin registry). */
  async getCoinWallet(userId: string, reference: string) {
    const coin = await this.deps.coins.get(reference)
    const [{ accounts }, rateOf] = await Promise.all([this.ensureUserWallet(userId), this.#rates()])
    const account = accounts.find((a) => a.coin === coin.reference)!
    const amount = BigInt(account.balance)
    return {
      _id: account.id,
      coin: coin.symbol,
      amount: unitsToNumber(amount, coin.decimals),
      usdValue: centsToNumber(unitsToCents(amount, coin.decimals, rateOf(coin.reference))),
      icon: coin.icon,
    }
  }

  /** One wallet by id, as the SDK asks for it: the wallet `_id` of #19, or the entry `id` of #18. */
  async getWalletById(userId: string, id: string) {
    const { accounts } = await this.ensureUserWallet(userId)
    const account = accounts.find((a) => a.id === id || a.coin === id)
    if (!account) throw errors.notFound('wallet')
    return this.getCoinWallet(userId, account.coin)
  }

  /**
   * #20: the password and a code (TOTP with google_auth on, otherwise an emailed code) unlock the
   * private key. The export is audited (never the key) and the key is flagged exported: from then
   * on the watcher expects transfers the platform did not sign and books them as external.
   */
  async exportKey(userId: string, input: { code: string; password: string }, ip: string | null) {
    await this.deps.confirmPassword(userId, input.password, 'wallet.export_key', ip)
    const { key } = await this.ensureUserWallet(userId)
    return this.deps.verifySensitiveCode(userId, input.code, async (tx) => {
      const secretKey = await this.deps.keys.privateKey(tx, key.address)
      await this.deps.keys.markExported(tx, key.id)
      await walletRepo.audit(tx, userId, 'wallet.export_key', ip, { address: key.address })
      return { secretKey, walletAddress: checksum(key.address) }
    })
  }
}
