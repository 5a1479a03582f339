// Onboarding (POST /v1/account/onboard, the SDK's onboardEndpoint): the first choices of a new
// account — its skill category (one of the seeded parent tags), its profile image and its type —
// turned into one profile update.
import { errors } from '../../http/errors.ts'
import type { ProfileUpdate } from './profile.ts'
import { TAXONOMY } from './taxonomy.ts'

export const ACCOUNT_TYPES = ['talent', 'business'] as const
export type AccountType = (typeof ACCOUNT_TYPES)[number]

export interface OnboardInput {
  skillCategory: string
  profileImage: string
  type: string
}

/** The seeded category a name or key stands for (any case), or undefined. */
export function categoryOf(value: string) {
  const v = value.trim().toLowerCase()
  return TAXONOMY.find((p) => p.key === v || p.name.toLowerCase() === v)
}

/** Checks the choices and answers the profile update they make (400 naming the bad field). */
export function onboardUpdate(input: OnboardInput): ProfileUpdate {
  const category = categoryOf(input.skillCategory)
  if (!category)
    throw errors.field(
      '/skillCategory',
      `must be one of the skill categories: ${TAXONOMY.map((p) => p.name).join(', ')}`,
    )
  const type = input.type.trim().toLowerCase()
  if (!(ACCOUNT_TYPES as readonly string[]).includes(type))
    throw errors.field('/type', `must be ${ACCOUNT_TYPES.join(' or ')}`)
  return {
    profile: { talent: { tagsCategory: category.name } },
    profileImage: input.profileImage,
    type: type as AccountType,
  }
}
