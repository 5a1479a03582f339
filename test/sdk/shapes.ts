// The answer shapes a client of `@pakt/sdk` relies on: the fields of the API's resources, with the
// SDK's own types (node_modules/@pakt/sdk/dist/main.d.ts) where the API contract is silent.
// Fields are required and typed; extra fields are allowed unless a form is private by design.
import { type TSchema, Type } from 'typebox'

const Str = Type.String()
const Num = Type.Number()
const Int = Type.Integer()
const Bool = Type.Boolean()
const StrArray = Type.Array(Str)
/** ISO 8601 UTC with milliseconds (SPEC convention 5). */
export const Iso = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' })
export const Id = Type.String({ pattern: '^[0-9a-f]{24}$' })
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })
/** A decimal number written as a string, e.g. `105` or `4.2`. */
const DecimalString = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })
const Nullable = (s: TSchema) => Type.Union([s, Type.Null()])
const stamps = { createdAt: Iso, updatedAt: Iso }
const record = { ...stamps, __v: Num }

export const Empty = Type.Object({}, { additionalProperties: false })

// Tokens (SPEC "Token object")
const tokenFields = { token: Str, token_type: Type.Literal('jwt'), expiresIn: Int }
export const TokenObject = Type.Object(tokenFields)
/** `auth.register` maps the answer's `tempToken` to the top level of `data` (RegisterDto). */
export const RegisterDto = Type.Object(tokenFields, { additionalProperties: false })
/** #2, through `auth.verifyAccount`, which adds `code` (= the token) to `data` (AccountVerifyDto). */
export const AccountVerifyDto = Type.Object({ ...tokenFields, isVerified: Bool, code: Str })
/** #4 without two-factor (LoginDto's token fields). */
export const LoginData = Type.Object({ ...tokenFields, isVerified: Bool })
/** #4 with two-factor on (no permanent token, a tempToken for #5). */
export const TwoFaChallenge = Type.Object({
  twoFaRequired: Type.Literal(true),
  twoFaType: Str,
  tempToken: TokenObject,
})
export const TempTokenData = Type.Object({ tempToken: TokenObject })

// Users (SPEC "User (full form)", "User (public form)", Tag, Achievement)
export const Tag = Type.Object({
  _id: Id,
  name: Str,
  key: Str,
  color: Type.String({ pattern: '^#[0-9a-fA-F]{3,8}$' }),
  description: Type.Optional(Str),
  icon: Type.Optional(Str),
  categories: StrArray,
  isParent: Bool,
  type: Str,
  entryCount: Num,
  ...record,
})
const Achievement = Type.Object({ _id: Id, owner: Id, type: Str, total: Str, value: Str, ...record })
const Contact = Type.Object({
  country: Type.Optional(Str),
  state: Type.Optional(Str),
  city: Type.Optional(Str),
  address: Type.Optional(Str),
  phone: Type.Optional(Str),
})
const Bio = Type.Object({ title: Type.Optional(Str), description: Type.Optional(Str) })
const Availability = Type.Union([
  Type.Literal('available'),
  Type.Literal('limited'),
  Type.Literal('unavailable'),
])
const FileSummary = Type.Object({
  _id: Type.Optional(Str),
  name: Type.Optional(Str),
  type: Type.Optional(Str),
  size: Type.Optional(Str),
  url: Type.Optional(Str),
})
const Socket = Type.Object({ status: Str })

export const FullUser = Type.Object({
  _id: Id,
  firstName: Str,
  lastName: Str,
  email: Str,
  status: Bool,
  emailVerified: Bool,
  emailVerifiedAt: Nullable(Iso),
  role: Str,
  type: Str,
  profile: Type.Object({
    contact: Contact,
    bio: Bio,
    talent: Type.Object({
      about: Type.Optional(Str),
      availability: Type.Optional(Availability),
      tags: StrArray,
      tagsIds: Type.Array(Tag),
    }),
  }),
  isPrivate: Bool,
  walletGenerated: Bool,
  score: Num,
  twoFa: Type.Object({ type: Str, status: Bool, securityQuestion: Str }),
  profileCompleteness: Num,
  socket: Socket,
  loggedInAt: Nullable(Iso),
  isUserNameUpdated: Bool,
  referralCode: Str,
  userName: Str,
  web3Onboard: Bool,
  accountType: Str,
  bgImage: FileSummary,
  profileImage: FileSummary,
  meta: Type.Object({ pointScore: Num }),
  socials: Type.Object({
    github: Type.Optional(Str),
    twitter: Type.Optional(Str),
    linkedin: Type.Optional(Str),
    website: Type.Optional(Str),
  }),
  achievements: Type.Array(Achievement),
  isVerified: Bool,
  kyc: Bool,
  kycStatus: Nullable(Str),
  ...stamps,
})

/** #5 (LoginTwoFADTO): the full user with the permanent token. */
export const LoginTwoFaDto = Type.Object({ ...FullUser.properties, ...tokenFields, isVerified: Bool })

const publicFields = {
  _id: Id,
  firstName: Str,
  lastName: Str,
  role: Str,
  type: Str,
  isPrivate: Bool,
  score: Num,
  profileCompleteness: Num,
  socket: Socket,
  achievements: Type.Array(Achievement),
  kyc: Bool,
  kycStatus: Nullable(Str),
}
const PublicTalent = {
  availability: Type.Optional(Availability),
  tags: StrArray,
  tagsIds: Type.Array(Tag),
}
export const PublicUser = Type.Object({
  ...publicFields,
  profile: Type.Object({ talent: Type.Object(PublicTalent), verified: Bool }),
})
const SearchUser = Type.Object({
  ...publicFields,
  profile: Type.Object({
    contact: Contact,
    bio: Bio,
    talent: Type.Object({ ...PublicTalent, about: Type.Optional(Str) }),
    verified: Bool,
  }),
  ...stamps,
  isBookmarked: Bool,
  bookmarkId: Str,
})
/** #40 (FindUsers plus `position`). */
export const FindUsers = Type.Object({
  pages: Int,
  page: Int,
  total: Int,
  limit: Int,
  position: Int,
  data: Type.Array(SearchUser),
})

/** #41 (TwoFAresponse; the service adds `secret` and `otpauthUrl` for google_auth). */
export const TwoFaResponse = Type.Object({
  type: Type.Union([Type.Literal('email'), Type.Literal('google_auth')]),
})

// Coins, chains, wallets, transactions, withdrawals
export const Coin = Type.Object({
  _id: Id,
  name: Str,
  symbol: Str,
  reference: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]*$' }),
  icon: Str,
  contractAddress: Type.Optional(Address),
  decimal: Type.String({ pattern: '^[0-9]+$' }),
  isToken: Bool,
  rpcChainId: Str,
  active: Bool,
  order: Type.Optional(Num),
  ...record,
})
export const Rpc = Type.Object({
  _id: Id,
  rpcName: Str,
  rpcChainId: Str,
  rpcUrls: StrArray,
  blockExplorerUrls: StrArray,
  rpcNativeCurrency: Type.Object({ name: Str, symbol: Str, decimals: Type.String({ pattern: '^[0-9]+$' }) }),
  active: Bool,
  ...record,
})
export const WalletEntry = Type.Object({
  id: Str,
  amount: Type.String({ pattern: '^[0-9]+\\.[0-9]{6}$' }),
  usdValue: Num,
  address: Address,
  coin: Str,
  icon: Str,
})
/** #18 (IWalletResponseDto). */
export const WalletSummary = Type.Object({ totalBalance: Num, value: Num, wallets: Type.Array(WalletEntry) })
/** #19 (ISingleWalletDto; SPEC lists `_id, coin, amount, usdValue, icon`). */
export const SingleWallet = Type.Object({ _id: Str, coin: Str, amount: Num, usdValue: Num, icon: Str })
export const Exchange = Type.Object({ avax: Num }, { additionalProperties: Num })

export const Transaction = Type.Object({
  _id: Id,
  owner: Id,
  amount: Num,
  coin: Type.Object({ ...Coin.properties, order: Num }),
  chain: Str,
  currency: Str,
  usdValue: Num,
  rate: DecimalString,
  description: Str,
  tx: Type.Optional(Str),
  type: Type.Union([Type.Literal('deposit'), Type.Literal('withdrawal')]),
  method: Str,
  status: Type.Union(['pending', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
  isFee: Bool,
  isPlatformFee: Bool,
  isExternal: Type.Optional(Bool),
  responseData: Str,
  ...record,
})
/** #24 (FindTransactionsDto). */
export const FindTransactions = Type.Object({
  page: Int,
  pages: Int,
  total: Int,
  limit: Int,
  transactions: Type.Array(Transaction),
})

export const Withdrawal = Type.Object({
  _id: Id,
  owner: Id,
  coin: Str,
  address: Address,
  amount: Num,
  usdValue: Num,
  usdRate: Num,
  status: Type.Union(['pending', 'processing', 'completed', 'failed'].map((s) => Type.Literal(s))),
  retryCount: Num,
  errMsg: StrArray,
  ...record,
})
/** #23 (FindWithdrawalsDto). */
export const FindWithdrawals = Type.Object({
  page: Int,
  pages: Int,
  total: Int,
  data: Type.Array(Withdrawal),
})

// Collections and bookmarks (SPEC "Collection")
const UserSummary = Type.Object({
  _id: Id,
  firstName: Str,
  lastName: Str,
  role: Str,
  type: Str,
  profile: Type.Object({}),
  isPrivate: Bool,
  score: Num,
  profileCompleteness: Num,
  socket: Socket,
})
const collectionFields = {
  _id: Id,
  creator: UserSummary,
  name: Str,
  category: Str,
  description: Str,
  type: Str,
  equity: Str,
  collections: Type.Array(Type.Unknown()),
  owners: Type.Array(Type.Unknown()),
  invites: Type.Array(Type.Unknown()),
  attachments: Type.Array(Type.Unknown()),
  attachmentData: Type.Array(Type.Unknown()),
  ratings: Type.Array(Type.Unknown()),
  payoutTransactions: Type.Array(Type.Unknown()),
  tagsData: StrArray,
  tags: Type.Array(Type.Object({ _id: Id, name: Str, key: Str, color: Str, type: Str })),
  status: Str,
  inviteAccepted: Bool,
  payoutStatus: Str,
  feePayoutStatus: Str,
  platformFeePayoutStatus: Str,
  paymentFee: Num,
  isPrivate: Bool,
  deliveryDate: Nullable(Iso),
  recipientCompletedJob: Bool,
  score: Num,
  progress: Num,
  isDeleted: Bool,
  isFundingRequest: Bool,
  failedPayoutCount: Num,
  failedFeePayoutCount: Num,
  failedPlatformFeePayoutCount: Num,
  isParentFunded: Bool,
  totalChildCollectionsCount: Num,
  totalChildCollectionEscrowCount: Num,
  ...record,
}
/** #26, #30 (ICollectionDto). */
export const Collection = Type.Object(collectionFields)
/** #27 (FindCollectionDto): items add isBookmarked and bookmarkId. */
export const FindCollections = Type.Object({
  page: Int,
  pages: Int,
  total: Int,
  limit: Int,
  data: Type.Array(Type.Object({ ...collectionFields, isBookmarked: Bool, bookmarkId: Str })),
})
/** #29: the older update shape. */
export const CollectionUpdate = Type.Object({
  _id: Id,
  name: Str,
  category: Str,
  description: Str,
  equity: Str,
  collections: Type.Array(Type.Unknown()),
  type: Str,
  owners: Type.Array(Type.Unknown()),
  invites: Type.Array(Type.Unknown()),
  applications: Type.Array(Type.Unknown()),
  skillData: Type.Array(Type.Unknown()),
  skills: Type.Array(Type.Unknown()),
  status: Str,
  inviteAccepted: Bool,
  payoutStatus: Str,
  paymentStatus: Str,
  feePayoutStatus: Str,
  balanceStatus: Str,
  paymentFee: DecimalString,
  isPrivate: Bool,
  deliveryDate: Nullable(Iso),
  recipientCompletedJob: Bool,
  score: Num,
  progress: Num,
  isDeleted: Bool,
  slug: Str,
  ...record,
})
/** ICollectionBookmarkDto. */
export const Bookmark = Type.Object({
  _id: Id,
  owner: Id,
  type: Type.Union([
    Type.Literal('collection'),
    Type.Literal('user'),
    Type.Literal('feed'),
    Type.Literal('invite'),
  ]),
  ...stamps,
})
export const FindBookmarks = Type.Object({
  page: Int,
  pages: Int,
  total: Int,
  limit: Int,
  data: Type.Array(Bookmark),
})

/** ICollectionTypeDto and FindCollectionTypeDto. */
export const CollectionType = Type.Object({ _id: Id, name: Str, value: Str, createdAt: Iso, updateAt: Iso })
export const FindCollectionTypes = Type.Object({
  page: Int,
  pages: Int,
  total: Int,
  limit: Int,
  data: Type.Array(CollectionType),
})

// Payments (/v1/payment/ of the SDK: IPaymentDataDto)
export const PaymentData = Type.Object({
  coin: Str,
  address: Address,
  collectionAmount: Num,
  collectionAmountCoin: DecimalString,
  expectedFee: DecimalString,
  amountToPay: DecimalString,
  usdFee: DecimalString,
  usdAmount: DecimalString,
  feePercentage: Num,
  rate: Num,
  chainId: Str,
})

// Files (SPEC "File record", #33)
export const FileRecord = Type.Object({
  _id: Id,
  name: Type.String({ pattern: '^(public|private)/[0-9a-f]{24}/[0-9a-f-]{36}\\.[a-z0-9]+$' }),
  uploaded_by: Id,
  type: Str,
  size: Type.String({ pattern: '^[0-9]+$' }),
  bucket: Str,
  url: Str,
  meta: Type.Object({ originalName: Str }),
  status: Bool,
  deletedAt: Nullable(Iso),
  ...record,
})
export const FindUploads = Type.Object({ count: Int, pages: Int, data: Type.Array(FileRecord) })
