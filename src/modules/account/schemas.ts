// The account contract: the User forms of the API and the account endpoints' bodies.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, NullableTimestamp, PaginationQuery, Password, Str, Timestamp } from '../../http/schemas.ts'
import { AVAILABILITY, META_MAX_BYTES, META_MAX_DEPTH } from './profile.ts'
import { CHILD_TAG, PROFILE, PUBLIC_USER, TAG, USER } from './schema-examples.ts'
import { MAX_TAG_LENGTH, MAX_TAGS } from './tags.ts'

export const Tag = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    key: Type.String(),
    color: Type.String(),
    description: Type.Optional(Type.String()),
    icon: Type.Optional(Type.String()),
    categories: Type.Array(Type.String()),
    isParent: Type.Boolean(),
    type: Type.String(),
    entryCount: Type.Number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  {
    $id: 'Tag',
    description: 'A skill tag. Colour and category placement are generated when a tag is first saved.',
    examples: [TAG],
  },
)

/** A profile or background image: empty when none is set. */
export const FileSummary = Type.Object(
  {
    _id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    type: Type.Optional(Type.String()),
    size: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
  },
  {
    $id: 'ProfileImage',
    description: 'A summary of the image file (`{}` when none is set).',
    examples: [{}],
  },
)

export const Achievement = Type.Object(
  {
    _id: Type.String(),
    owner: Type.String({ description: 'user id' }),
    type: Type.String({ description: '`five-star`, `referral`, `review` or `squad`' }),
    total: Type.String(),
    value: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  {
    $id: 'Achievement',
    examples: [
      {
        _id: EX.achievementId,
        owner: EX.userId,
        type: 'referral',
        total: '5',
        value: '1',
        createdAt: EX.created,
        updatedAt: EX.updated,
        __v: 0,
      },
    ],
  },
)

const Contact = Type.Object({
  country: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  address: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
})
const Bio = Type.Object({ title: Type.Optional(Type.String()), description: Type.Optional(Type.String()) })
const Talent = Type.Object({
  about: Type.Optional(Type.String()),
  availability: Type.Optional(Type.String()),
  tagsCategory: Type.Optional(
    Type.String({ description: 'the skill category chosen at onboarding (POST /v1/account/onboard)' }),
  ),
  tags: Type.Array(Type.String()),
  tagsIds: Type.Array(Tag),
})
const Socials = Type.Object({
  github: Type.Optional(Type.String()),
  twitter: Type.Optional(Type.String()),
  linkedin: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
})

export const FullUser = Type.Object(
  {
    _id: Id(),
    firstName: Type.String(),
    lastName: Type.String(),
    email: Type.String(),
    status: Type.Boolean(),
    emailVerified: Type.Boolean(),
    emailVerifiedAt: NullableTimestamp,
    role: Type.String(),
    type: Type.String(),
    profile: Type.Object({ contact: Contact, bio: Bio, talent: Talent, verified: Type.Boolean() }),
    isPrivate: Type.Boolean(),
    walletGenerated: Type.Boolean(),
    score: Type.Number(),
    twoFa: Type.Object({ type: Type.String(), status: Type.Boolean(), securityQuestion: Type.String() }),
    profileCompleteness: Type.Number(),
    socket: Type.Object({ status: Type.String() }),
    loggedInAt: NullableTimestamp,
    isUserNameUpdated: Type.Boolean(),
    referralCode: Type.String(),
    userName: Type.String(),
    web3Onboard: Type.Boolean(),
    accountType: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    bgImage: FileSummary,
    profileImage: FileSummary,
    meta: Type.Object({ pointScore: Type.Number() }, { additionalProperties: true }),
    socials: Socials,
    achievements: Type.Array(Achievement),
    isVerified: Type.Boolean(),
    kyc: Type.Boolean(),
    kycStatus: Type.Union([Type.String(), Type.Null()]),
    __v: Type.Number(),
  },
  {
    $id: 'User',
    description: 'The full form of an account, as its owner sees it.',
    examples: [USER],
  },
)

/** The full form plus the permanent token: the two-factor login result (#5). */
export const FullUserWithToken = Type.Object(
  {
    ...FullUser.properties,
    token: Type.String({ description: 'the permanent token' }),
    token_type: Type.Literal('jwt'),
    expiresIn: Type.Integer({ description: 'expiry, Unix milliseconds' }),
  },
  {
    $id: 'UserWithToken',
    description: 'The full form of the account with the permanent token: a completed two-factor login.',
    examples: [{ ...USER, token: EX.jwt, token_type: 'jwt', expiresIn: EX.permanentExpiresIn }],
  },
)

const PublicTalent = Type.Object({
  availability: Type.Optional(Type.String()),
  tags: Type.Array(Type.String()),
  tagsIds: Type.Array(Tag),
})

const publicFields = {
  _id: Id(),
  firstName: Type.String(),
  lastName: Type.String(),
  role: Type.String(),
  type: Type.String(),
  isPrivate: Type.Boolean(),
  score: Type.Number(),
  profileCompleteness: Type.Number(),
  socket: Type.Object({ status: Type.String() }),
  achievements: Type.Array(Achievement),
  kyc: Type.Boolean(),
  kycStatus: Type.Union([Type.String(), Type.Null()]),
}

/** Another user's profile (#39): never the email, contact details or bio. */
export const PublicUser = Type.Object(
  {
    ...publicFields,
    profile: Type.Object({ talent: PublicTalent, verified: Type.Boolean() }),
  },
  {
    $id: 'PublicUser',
    description: 'Another user’s profile: no email, contact details or bio.',
    examples: [
      {
        ...PUBLIC_USER,
        profile: {
          talent: { tags: ['typescript', 'Design'], tagsIds: [CHILD_TAG, TAG], availability: 'available' },
          verified: false,
        },
      },
    ],
  },
)

/** A row of the people search (#40). Contact, bio and about stay empty for private profiles. */
export const SearchUser = Type.Object(
  {
    ...publicFields,
    profile: Type.Object({
      contact: Contact,
      bio: Bio,
      talent: Type.Object({ ...PublicTalent.properties, about: Type.Optional(Type.String()) }),
      verified: Type.Boolean(),
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    isBookmarked: Type.Boolean(),
    bookmarkId: Type.String({ description: 'the caller’s bookmark of this user; empty when not bookmarked' }),
  },
  {
    $id: 'SearchUser',
    description:
      'A row of the people search: the public form with contact, bio and about (empty for private profiles).',
    examples: [
      {
        ...PUBLIC_USER,
        profile: PROFILE,
        createdAt: EX.created,
        updatedAt: EX.updated,
        isBookmarked: false,
        bookmarkId: '',
      },
    ],
  },
)

export const SearchQuery = Type.Object(
  {
    ...PaginationQuery,
    role: Type.Optional(Str(50, { minLength: 1, description: 'exact role, e.g. `user` or `partner`' })),
    profileCompletenessMin: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    profileCompletenessMax: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    tags: Type.Optional(
      Str(1000, {
        description: 'comma-separated tag names or keys; a user matches when it has any of them',
      }),
    ),
    owner: Type.Optional(
      Type.Boolean({ description: 'true: only accounts that signed up with the caller’s referral code' }),
    ),
    search: Type.Optional(
      Str(200, {
        description:
          'case-insensitive words, each matched as a word prefix in names, userName, title, about and tags',
      }),
    ),
  },
  { additionalProperties: false },
)

export const SearchData = Type.Object(
  {
    pages: Type.Integer({ examples: [1] }),
    page: Type.Integer({ examples: [1] }),
    total: Type.Integer({ examples: [1] }),
    limit: Type.Integer({ examples: [12] }),
    position: Type.Integer({
      description: 'offset of the first item of this page in the whole result (0-based)',
      examples: [0],
    }),
    data: Type.Array(SearchUser),
  },
  { $id: 'UserPage' },
)

const Name = Str(100, { minLength: 1, pattern: '\\S' })
const Text = (maxLength: number) => Type.String({ maxLength })
const ImageRef = Type.Union([Id(), Type.Null(), Type.Literal('')], {
  description: 'id of one of your public uploads (#31); null or an empty string removes the image',
})
const strict = { additionalProperties: false } as const

export const UpdateBody = Type.Object(
  {
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Name),
    profile: Type.Optional(
      Type.Object(
        {
          contact: Type.Optional(
            Type.Object(
              {
                country: Type.Optional(Text(100)),
                state: Type.Optional(Text(100)),
                city: Type.Optional(Text(100)),
                address: Type.Optional(Text(300)),
                phone: Type.Optional(
                  Type.String({ maxLength: 32, description: 'international format with the country code' }),
                ),
              },
              strict,
            ),
          ),
          bio: Type.Optional(
            Type.Object({ title: Type.Optional(Text(150)), description: Type.Optional(Text(2000)) }, strict),
          ),
          talent: Type.Optional(
            Type.Object(
              {
                about: Type.Optional(Text(5000)),
                availability: Type.Optional(
                  Type.Union(
                    AVAILABILITY.map((v) => Type.Literal(v)),
                    { description: AVAILABILITY.map((v) => `\`${v}\``).join(', ') },
                  ),
                ),
                tags: Type.Optional(
                  Type.Array(Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH }), {
                    maxItems: MAX_TAGS,
                  }),
                ),
              },
              strict,
            ),
          ),
        },
        strict,
      ),
    ),
    bgImage: Type.Optional(ImageRef),
    profileImage: Type.Optional(ImageRef),
    isPrivate: Type.Optional(
      Type.Boolean({
        description:
          'true hides the profile from other users’ people search (#40) and shows them only the identity fields in #39',
      }),
    ),
    meta: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: `free-form keys merged into \`meta\` (a key sent as null is removed; \`pointScore\` is the service’s); at most ${META_MAX_BYTES / 1024} KiB as JSON and ${META_MAX_DEPTH} levels deep`,
        },
      ),
    ),
    socials: Type.Optional(
      Type.Object(
        {
          github: Type.Optional(Text(300)),
          twitter: Type.Optional(Text(300)),
          linkedin: Type.Optional(Text(300)),
          website: Type.Optional(Text(300)),
        },
        strict,
      ),
    ),
  },
  {
    ...strict,
    examples: [
      {
        profile: {
          contact: { country: 'GB', phone: '+44 20 7946 0000' },
          bio: { title: 'Engineer' },
          talent: { about: 'Analytical engines', availability: 'available', tags: ['typescript', 'design'] },
        },
        socials: { github: 'https://github.com/ada' },
      },
    ],
  },
)

export const ChangePasswordBody = Type.Object(
  { oldPassword: Password, newPassword: Password },
  { ...strict, examples: [{ oldPassword: EX.password, newPassword: 'N3w!password' }] },
)
export const DeleteAccountBody = Type.Object(
  { password: Password },
  { ...strict, examples: [{ password: EX.password }] },
)
