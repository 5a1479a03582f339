// Table types of OpenID Connect sign-in (Google): pending authorization requests and linked identities.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface OidcStatesTable {
  /** SHA-256 of the state (hex): the state itself is never stored */
  stateHash: string
  codeVerifier: string
  nonce: string
  createdAt: Timestamp
  expiresAt: Timestamp
  /** set when the state was presented once; it never works again */
  usedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export interface OidcIdentitiesTable {
  issuer: string
  /** the provider's `sub`: stable for the person, unlike the email */
  subject: string
  userId: string
  email: string
  createdAt: Timestamp
  lastSignInAt: Timestamp
}

export interface OidcTables {
  oidcStates: OidcStatesTable
  oidcIdentities: OidcIdentitiesTable
}
