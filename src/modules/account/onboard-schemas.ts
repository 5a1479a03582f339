// The onboarding request (POST /v1/account/onboard, the SDK's onboardEndpoint).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, Str } from '../../http/schemas.ts'
import { TAXONOMY } from './taxonomy.ts'

export const OnboardBody = Type.Object(
  {
    skillCategory: Str(60, {
      minLength: 1,
      description: `a skill category by name or key, any case: ${TAXONOMY.map((p) => p.name).join(', ')}; shown as \`profile.talent.tagsCategory\``,
    }),
    profileImage: Id('id of one of your public uploads (#31)'),
    type: Str(20, { minLength: 1, description: '`talent` or `business`: the account type shown as `type`' }),
  },
  {
    additionalProperties: false,
    examples: [{ skillCategory: 'Design', profileImage: EX.fileId, type: 'talent' }],
  },
)
