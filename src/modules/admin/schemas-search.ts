// The operator console's global search: the query and its typed hits, with the console route of
// each hit's detail page.
import { Type } from 'typebox'

const EX_ID = '65f1c0a2b3c4d5e6f7a8b9c1'
/** A transaction hash the console examples share. */
export const EX_HASH = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060'

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description:
        'a transaction hash (0x + 64 hex), an address (0x + 40 hex), an email, a record id (24 hex), or part of an email, user name or name',
    }),
  },
  { additionalProperties: false },
)

export const SearchHit = Type.Object(
  {
    kind: Type.Union(
      ['user', 'transfer', 'withdrawal', 'deposit', 'escrow', 'escrow_leg', 'job', 'dispute'].map((k) =>
        Type.Literal(k),
      ),
    ),
    id: Type.String({ description: 'the record id (a deposit: its transaction hash)' }),
    label: Type.String(),
    detail: Type.String({ description: 'a second line: state, amount, owner' }),
    match: Type.String({
      description:
        'what matched: `txHash`, `custodialAddress`, `destinationAddress`, `web3Address`, `email`, `id`, `jobId` or `name`',
    }),
    link: Type.String({ description: 'the console route of its detail page, e.g. `#/user/<id>`' }),
  },
  { $id: 'AdminSearchHit' },
)

export const SearchResult = Type.Object(
  {
    q: Type.String(),
    queryKind: Type.Union(
      ['txHash', 'address', 'email', 'id', 'text'].map((k) => Type.Literal(k)),
      {
        description: 'how the query was read, which decides what was looked up',
      },
    ),
    hits: Type.Array(SearchHit),
  },
  {
    $id: 'AdminSearchResult',
    examples: [
      {
        q: EX_HASH,
        queryKind: 'txHash',
        hits: [
          {
            kind: 'deposit',
            id: EX_HASH,
            label: '25 USDC → 0x8ba1f109551bd432803012645ac136ddd64dba72',
            detail: 'block 1042 · credited',
            match: 'txHash',
            link: `#/deposit/${EX_HASH}`,
          },
          {
            kind: 'user',
            id: EX_ID,
            label: 'alice@example.com',
            detail: 'Alice Example · user',
            match: 'txHash',
            link: `#/user/${EX_ID}`,
          },
        ],
      },
    ],
  },
)
