// Accounts: creation (shared by email and web3 sign-up) and the profile views.
import { randomInt } from 'node:crypto'
import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { accountRepo, type UserRow } from './repo.ts'

/** Called in the sign-up transaction for every new account (wallet generation hooks in here). */
export type UserCreatedHook = (tx: Tx, user: { id: string }) => Promise<void>

export interface NewUser {
  email: string | null
  firstName: string
  lastName: string
  passwordHash: string | null
  accountType: 'email' | 'web3'
  web3Address?: string | null
  referralCode?: string | null
}

const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

function randomReferralCode() {
  let s = ''
  for (let i = 0; i < 8; i++) s += REFERRAL_ALPHABET[randomInt(REFERRAL_ALPHABET.length)]
  return s
}

function userNameBase(input: NewUser): string {
  const fromName = `${input.firstName}${input.lastName}`.toLowerCase().replace(/[^a-z0-9]/g, '')
  const fromEmail = (input.email ?? '')
    .split('@')[0]!
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
  return (fromName || fromEmail || 'user').slice(0, 20)
}

export function searchText(parts: Array<string | null | undefined>): string {
  return parts
    .filter((p): p is string => !!p)
    .join(' ')
    .toLowerCase()
}

export class AccountService {
  readonly userCreatedHooks: UserCreatedHook[] = []

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Inserts a new account with a unique generated userName and referral code. */
  async createUser(tx: Tx, input: NewUser): Promise<{ id: string; userName: string }> {
    const now = this.deps.clock.now()
    let referredBy: string | null = null
    if (input.referralCode) {
      const referrer = await accountRepo.findByReferralCode(tx, input.referralCode)
      if (!referrer) throw errors.field('/referralCode', 'Unknown referral code')
      referredBy = referrer.id
    }
    const base = userNameBase(input)
    for (let attempt = 0; attempt < 10; attempt++) {
      const userName = `${base}${randomInt(1000, 10 ** (4 + Math.min(attempt, 4)))}`
      if (await accountRepo.userNameTaken(tx, userName)) continue
      const id = newId()
      const inserted = await accountRepo.insertUser(tx, {
        id,
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        passwordHash: input.passwordHash,
        userName,
        referralCode: randomReferralCode(),
        referredBy,
        accountType: input.accountType,
        web3Address: input.web3Address ?? null,
        searchText: searchText([input.firstName, input.lastName, userName]),
        now,
      })
      // A conflict on the email is a real conflict; one on a generated value is retried.
      if (!inserted) {
        if (input.email && (await this.emailTaken(tx, input.email)))
          throw errors.conflict('This email is already registered')
        continue
      }
      for (const hook of this.userCreatedHooks) await hook(tx, { id })
      return { id, userName }
    }
    throw new Error('could not generate a unique user name')
  }

  async emailTaken(ex: Executor, email: string): Promise<boolean> {
    const row = await ex
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
    return !!row
  }

  async getFullUser(id: string, ex: Executor = this.deps.db) {
    const row = await accountRepo.getUser(ex, id)
    if (!row) throw errors.notFound('account')
    return toFullUser(row)
  }
}

/** The full User form of SPEC.md. Objects are present (empty) where nothing is set. */
export function toFullUser(row: UserRow, extras: { tagsIds?: unknown[]; achievements?: unknown[] } = {}) {
  const profile = row.profile ?? {}
  const talent = profile.talent ?? {}
  return {
    _id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email ?? '',
    status: row.status,
    emailVerified: row.emailVerified,
    emailVerifiedAt: row.emailVerifiedAt,
    role: row.role,
    type: row.type,
    profile: {
      contact: profile.contact ?? {},
      bio: profile.bio ?? {},
      talent: { ...talent, tags: talent.tags ?? [], tagsIds: extras.tagsIds ?? [] },
      verified: row.verified,
    },
    isPrivate: row.isPrivate,
    walletGenerated: row.walletGenerated,
    score: row.score,
    twoFa: { type: row.twoFaType, status: row.twoFaEnabled, securityQuestion: row.securityQuestion },
    profileCompleteness: row.profileCompleteness,
    socket: { status: row.socketStatus },
    loggedInAt: row.loggedInAt,
    isUserNameUpdated: row.isUserNameUpdated,
    referralCode: row.referralCode,
    userName: row.userName,
    web3Onboard: row.web3Onboard,
    accountType: row.accountType,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    bgImage: {},
    profileImage: {},
    meta: row.meta ?? { pointScore: 0 },
    socials: row.socials ?? {},
    achievements: extras.achievements ?? [],
    isVerified: row.emailVerified,
    kyc: row.kyc,
    kycStatus: row.kycStatus,
    __v: row.version,
  }
}
