// Sign-in with an Ethereum wallet (spec #10–#12): issue an EIP-4361 message, check its signature
// (EIP-191 for keys, EIP-1271 for contract wallets), create the account on first use, and onboard
// it with names and an email that #2 then verifies.
import type { Logger } from 'pino'
import type { Address, Hex } from 'viem'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { searchText } from '../account/module.ts'
import type { AccountService } from '../account/types.ts'
import type { FlowService } from './flows.ts'
import { authRepo } from './repo.ts'
import type { AuthService, RequestMeta, TwoFaChallenge } from './service.ts'
import { TEMP_TOKEN_TTL_MS, type TokenObject } from './tokens.ts'
import { web3Repo } from './web3-repo.ts'
import {
  buildSiweMessage,
  DEFAULT_CHAIN_ID,
  isEoaSignature,
  messageExpiry,
  newSiweNonce,
  parseAddress,
} from './web3-siwe.ts'

/** What this module uses of the chain adapter, when one is configured. */
export type Web3Chain = Pick<ChainAdapter, 'chainId' | 'isContract' | 'verifySignature'>

export interface Web3SignIn {
  account: Address
  token: string
  token_type: 'jwt'
  expiresIn: number
  isVerified: true
}

export interface Web3Pending {
  account: Address
  tempToken: TokenObject
}

export type Web3ValidateResult =
  | { kind: 'session'; data: Web3SignIn }
  | { kind: 'two_fa'; data: TwoFaChallenge }
  | { kind: 'onboard'; created: boolean; onboarded: boolean; data: Web3Pending }

type Outcome =
  | Exclude<Web3ValidateResult, { kind: 'two_fa' }>
  | {
      kind: 'two_fa_pending'
      user: NonNullable<Awaited<ReturnType<typeof web3Repo.findLiveUserByAddress>>>
    }

export class Web3Service {
  constructor(
    private readonly deps: {
      db: Db
      config: Config
      clock: Clock
      log: Logger
      flows: FlowService
      auth: AuthService
      accounts: AccountService
      /** the chain adapter, read per request (none: pure EIP-191 checks, chain id 31337) */
      chain: () => Web3Chain | undefined
    },
  ) {}

  chainId(): number {
    const id = Number(this.deps.chain()?.chainId ?? DEFAULT_CHAIN_ID)
    return Number.isSafeInteger(id) && id > 0 ? id : DEFAULT_CHAIN_ID
  }

  /** #10: a fresh single-use message for `account` and the tempToken bound to it. */
  async request(account: string): Promise<{ message: string; tempToken: TokenObject }> {
    const address = parseAddress(account)
    if (!address)
      throw errors.field('/account', 'must be an address with a valid EIP-55 checksum, or all lower case')
    const issuedAt = this.deps.clock.now()
    const nonce = newSiweNonce()
    const message = buildSiweMessage({
      publicUrl: this.deps.config.publicUrl,
      address,
      chainId: this.chainId(),
      nonce,
      issuedAt,
      expirationTime: new Date(issuedAt.getTime() + TEMP_TOKEN_TTL_MS),
    })
    const flow = await this.deps.flows.start(this.deps.db, {
      purpose: 'web3_sign',
      userId: null,
      address: address.toLowerCase(),
      nonce,
      message,
    })
    return { message, tempToken: flow.tempToken }
  }

  /**
   * #11: the signature must be over the exact message issued with `tempToken`. The flow is used up
   * in the same transaction that creates the account or the session, so a signature or tempToken
   * works once.
   */
  async validate(signature: Hex, tempToken: string, meta: RequestMeta): Promise<Web3ValidateResult> {
    const flow = await this.deps.flows.open(tempToken, 'web3_sign')
    if (!flow.address || !flow.message) throw errors.unauthenticated('Invalid temporary token for this step')
    const expiry = messageExpiry(flow.message)
    if (expiry && expiry <= this.deps.clock.now())
      throw errors.unauthenticated('The message has expired; request a new one')
    const address = parseAddress(flow.address)!
    if (!(await this.#signatureValid(address, flow.message, signature)))
      throw errors.invalidCredentials('The signature does not match this message and wallet address')

    const outcome = await this.deps.db.transaction().execute(async (tx): Promise<Outcome> => {
      await this.deps.flows.consume(tx, flow.id)
      await web3Repo.lockAddress(tx, flow.address!)
      const existing = await web3Repo.findLiveUserByAddress(tx, flow.address!)
      if (existing?.web3Onboard && existing.emailVerified) {
        if (existing.twoFaEnabled) {
          // The challenge starts after this commit; the signature is spent either way.
          return { kind: 'two_fa_pending', user: existing }
        }
        const token = await this.deps.auth.issueSession(existing.id, meta, tx)
        return { kind: 'session', data: { account: address, ...token, isVerified: true } }
      }
      const userId =
        existing?.id ??
        (
          await this.deps.accounts.createUser(tx, {
            email: null,
            firstName: '',
            lastName: '',
            passwordHash: null,
            accountType: 'web3',
            web3Address: flow.address!,
          })
        ).id
      if (!existing) await authRepo.audit(tx, userId, 'web3.account_created', meta.ip, { address })
      await authRepo.killOpenFlows(tx, userId, 'web3_onboard', this.deps.clock.now())
      const onboard = await this.deps.flows.start(tx, {
        purpose: 'web3_onboard',
        userId,
        address: flow.address,
      })
      return {
        kind: 'onboard',
        created: !existing,
        onboarded: !!existing?.web3Onboard,
        data: { account: address, tempToken: onboard.tempToken },
      }
    })

    if (outcome.kind !== 'two_fa_pending') return outcome
    const { user } = outcome
    const challenge = await this.deps.auth.twoFaLogin({
      id: user.id,
      email: user.email ?? '',
      firstName: user.firstName,
      twoFaType: user.twoFaType,
    })
    return { kind: 'two_fa', data: challenge }
  }

  /** #12: names and email for the account of a web3_onboard tempToken; mails a code for #2. */
  async onboard(input: {
    tempToken: string
    firstName: string
    lastName: string
    email: string
  }): Promise<{ tempToken: TokenObject; isVerified: false }> {
    const flow = await this.deps.flows.open(input.tempToken, 'web3_onboard')
    if (!flow.userId) throw errors.unauthenticated('Invalid temporary token for this step')
    const email = input.email.trim().toLowerCase()
    const firstName = input.firstName.trim()
    const lastName = input.lastName.trim()
    return this.deps.db.transaction().execute(async (tx) => {
      await this.deps.flows.consume(tx, flow.id)
      const user = await web3Repo.lockLiveUser(tx, flow.userId!)
      if (user?.accountType !== 'web3')
        throw errors.unauthenticated('This temporary token is no longer valid; start again')
      if (user.web3Onboard && user.emailVerified)
        throw errors.named('ONBOARDING_ALREADY_COMPLETED', 'This account has already completed onboarding')
      if (await web3Repo.emailHolder(tx, email, user.id))
        throw errors.conflict('This email is already registered', 'EMAIL_TAKEN')
      const now = this.deps.clock.now()
      await web3Repo.setOnboarded(tx, user.id, {
        firstName,
        lastName,
        email,
        searchText: searchText([firstName, lastName, user.userName]),
        now,
      })
      // Only the code of the latest onboarding verifies, so an abandoned email cannot be confirmed.
      // Codes of an earlier onboarding carry over only when they went to the same address.
      const inherit = await this.deps.flows.endOpenFlows(tx, user.id, 'verify_email')
      const verify = await this.deps.flows.start(tx, {
        purpose: 'verify_email',
        userId: user.id,
        email,
        withCode: true,
        inherit,
      })
      await this.deps.flows.mailCode(tx, 'verify_email', email, firstName, verify.code!)
      return { tempToken: verify.tempToken, isVerified: false as const }
    })
  }

  /**
   * EIP-191 recovery first (every key-held wallet); when that fails and the address holds code on
   * the configured chain, the wallet contract decides (EIP-1271 `isValidSignature`).
   */
  async #signatureValid(address: Address, message: string, signature: Hex): Promise<boolean> {
    if (await isEoaSignature(address, message, signature)) return true
    const chain = this.deps.chain()
    if (!chain) return false
    try {
      if (!(await chain.isContract(address))) return false
      return await chain.verifySignature(address, message, signature)
    } catch (err) {
      this.deps.log.warn({ err, address }, 'contract wallet signature check failed')
      throw errors.unavailable('The chain could not be reached to check a contract wallet signature')
    }
  }
}
