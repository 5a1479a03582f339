// The answer shapes a client of `@pakt/sdk` relies on: the fields of the API's resources, with the
// SDK's own types (node_modules/@pakt/sdk/dist/main.d.ts) where the API contract is silent.
// Fields are required and typed; extra fields are allowed unless a form is private by design.
// Collections, bookmarks, payments and files are in work-shapes.ts, re-exported here.
import { Type } from 'typebox'
import {
  Address,
  Bool,
  DecimalString,
  Id,
  Int,
  Iso,
  Nullable,
  Num,
  record,
  Socket,
  Str,
  StrArray,
  stamps,
} from './shape-kit.ts'

export { Id, Iso } from './shape-kit.ts'
export * from './work-shapes.ts'

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
