// SQL for accounts: creation and the full profile row.
import type { Executor } from '../../db/index.ts'

export const accountRepo = {
  insertUser(
    ex: Executor,
    user: {
      id: string
      email: string | null
      firstName: string
      lastName: string
      passwordHash: string | null
      userName: string
      referralCode: string
      referredBy: string | null
      accountType: string
      web3Address: string | null
      searchText: string
      now: Date
    },
  ) {
    const { now, ...values } = user
    return ex
      .insertInto('users')
      .values({
        ...values,
        profile: JSON.stringify({}),
        meta: JSON.stringify({ pointScore: 0 }),
        socials: JSON.stringify({}),
        createdAt: now,
        updatedAt: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst()
  },

  userNameTaken(ex: Executor, userName: string) {
    return ex
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['userName']), '=', userName.toLowerCase()))
      .executeTakeFirst()
  },

  findByReferralCode(ex: Executor, code: string) {
    return ex
      .selectFrom('users')
      .select('id')
      .where('referralCode', '=', code)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  getUser(ex: Executor, id: string) {
    return ex
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },
}

export type UserRow = NonNullable<Awaited<ReturnType<typeof accountRepo.getUser>>>
