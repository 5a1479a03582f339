// Custodial keys: one random secp256k1 key per owner (a user, an escrow, a treasury), stored only
// sealed by the secret box with the address as associated data, so a sealed key copied onto
// another row does not open.
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { type Write, write } from '../../db/compose.ts'
import type { Executor, Tx } from '../../db/index.ts'
import type { KeyOwnerKind } from '../../db/tables/wallet.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import { Kept } from '../../platform/kept.ts'
import { keysRepo } from './keys-repo.ts'

export type { KeyOwnerKind }

export interface CustodialKey {
  id: string
  ownerKind: KeyOwnerKind
  ownerId: string
  /** lower-case 0x address */
  address: string
  exportedAt: Date | null
}

const aad = (address: string) => `wallet-key:${address.toLowerCase()}`

/** Owners' addresses seen committed, kept by the process: a key is never removed or changed. */
const MAX_ADDRESSES = 100_000

export class KeyStore {
  readonly #addresses = new Kept<string>(MAX_ADDRESSES)

  constructor(private readonly deps: { secrets: SecretBox; clock: Clock }) {}

  /**
   * The owner's address (lower case), or undefined when it has no key. Kept by the process once
   * read outside a transaction (so committed): an address never changes, so no write needs telling.
   */
  async address(ex: Executor, ownerKind: KeyOwnerKind, ownerId: string): Promise<string | undefined> {
    const id = `${ownerKind}:${ownerId}`
    const known = this.#addresses.get(id)
    if (known !== undefined) return known
    const key = await this.find(ex, ownerKind, ownerId)
    if (key && !ex.isTransaction) this.#addresses.set(id, key.address)
    return key?.address
  }

  /**
   * The owner's key, created when missing (inside the caller's transaction), in one statement: a
   * fresh key is generated and sealed for the insert and stored only when the owner has none;
   * otherwise it is dropped unseen and the stored key is answered (two statements when a
   * concurrent caller stored one first: its key is answered). The key answered is always the one
   * stored. Callers make new owners (an escrow, a sign-up); one that mostly finds a key reads it
   * with `find` first (a user's payout address), so a key is generated for nothing only on rare
   * paths (a wallet completed later, the fee address at start).
   */
  async ensure(tx: Tx, ownerKind: KeyOwnerKind, ownerId: string): Promise<CustodialKey> {
    const key =
      (await keysRepo.insertOrFind(tx, this.#fresh(ownerKind, ownerId))) ??
      // A concurrent transaction stored one after the statement's snapshot: a new statement sees it.
      (await this.find(tx, ownerKind, ownerId))
    if (!key) throw new Error('custodial key was not stored')
    return key
  }

  /**
   * The key of an owner made in the caller's statement (a new escrow, whose id no key has yet):
   * generated and sealed here, stored by the write the caller runs with its own statement
   * (`withWrites`). Answers the key's address (lower case).
   */
  newOwnerKey(ex: Executor, ownerKind: KeyOwnerKind, ownerId: string): { address: string; write: Write } {
    const row = this.#fresh(ownerKind, ownerId)
    return { address: row.address, write: write(keysRepo.insertNew(ex, row)) }
  }

  /** A fresh random key for the owner, sealed with its address as associated data. */
  #fresh(ownerKind: KeyOwnerKind, ownerId: string) {
    const privateKey = generatePrivateKey()
    const address = privateKeyToAddress(privateKey).toLowerCase()
    return {
      id: newId(),
      ownerKind,
      ownerId,
      address,
      sealedKey: this.deps.secrets.seal(privateKey, aad(address)),
      createdAt: this.deps.clock.now(),
    }
  }

  find(ex: Executor, ownerKind: KeyOwnerKind, ownerId: string): Promise<CustodialKey | undefined> {
    return keysRepo.byOwner(ex, ownerKind, ownerId)
  }

  byAddress(ex: Executor, address: string): Promise<CustodialKey | undefined> {
    return keysRepo.byAddress(ex, address.toLowerCase())
  }

  /** Keys whose address is in `addresses` (any case). */
  async byAddresses(ex: Executor, addresses: string[]): Promise<CustodialKey[]> {
    const list = [...new Set(addresses.map((a) => a.toLowerCase()))]
    if (list.length === 0) return []
    return keysRepo.byAddresses(ex, list)
  }

  /**
   * The private key of a custodial address, for the platform's own signing (payouts, withdrawals)
   * and for the export flow. Never log it or put it in an error.
   */
  async privateKey(ex: Executor, address: string): Promise<`0x${string}`> {
    const row = await keysRepo.sealed(ex, address.toLowerCase())
    if (!row) throw new Error('no custodial key for this address')
    return this.deps.secrets.open(row.sealedKey, aad(row.address)) as `0x${string}`
  }

  /** A page of every custodial key, by address ascending after `after` (proof of reserves). */
  page(ex: Executor, after: string, limit: number): Promise<CustodialKey[]> {
    return keysRepo.page(ex, after.toLowerCase(), limit)
  }

  /**
   * An EIP-191 (personal_sign) signature of `message` by the key of a custodial address: proof
   * that the platform controls the address (proof of reserves). The key never leaves this call.
   */
  async signMessage(ex: Executor, address: string, message: string): Promise<`0x${string}`> {
    return privateKeyToAccount(await this.privateKey(ex, address)).signMessage({ message })
  }

  markExported(ex: Executor, id: string): Promise<void> {
    return keysRepo.markExported(ex, id, this.deps.clock.now())
  }
}
