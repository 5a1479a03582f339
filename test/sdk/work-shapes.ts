// The answer shapes of collections, bookmarks, payments and files a client of `@pakt/sdk` relies
// on (re-exported by shapes.ts, which has the accounts', wallets' and transactions').
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
