// The building blocks of the SDK answer shapes (shapes.ts, work-shapes.ts): typed scalars, ids,
// timestamps and the small objects several resources embed.
import { type TSchema, Type } from 'typebox'

export const Str = Type.String()
export const Num = Type.Number()
export const Int = Type.Integer()
export const Bool = Type.Boolean()
export const StrArray = Type.Array(Str)
/** ISO 8601 UTC with milliseconds (SPEC convention 5). */
export const Iso = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' })
export const Id = Type.String({ pattern: '^[0-9a-f]{24}$' })
export const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })
/** A decimal number written as a string, e.g. `105` or `4.2`. */
export const DecimalString = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })
export const Nullable = (s: TSchema) => Type.Union([s, Type.Null()])
export const stamps = { createdAt: Iso, updatedAt: Iso }
export const record = { ...stamps, __v: Num }
/** A user's live presence (`socket`). */
export const Socket = Type.Object({ status: Str })
