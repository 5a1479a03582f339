// The public contract of proof of reserves: snapshots, their reserve addresses and a user's proof
// of inclusion. The format of every field is specified in docs/reserves.md.
import { Type } from 'typebox'
import { Id, Timestamp } from '../../http/schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^(0|[1-9][0-9]*)$', description })
const Hash = (description: string) => Type.String({ pattern: '^0x[0-9a-f]{64}$', description })
const Address = Type.String({ pattern: '^0x[0-9a-f]{40}$', description: 'lower-case address' })
const Signature = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]+$', description })

const EXAMPLE_ROOT = '0xe9b95d0e46ec75b8c179e9c29564b3d8d81500b9acc5b31a77033afe9fa45e99'
const EXAMPLE_SIG = `0x${'ab'.repeat(65)}`

const snapshotFields = {
  id: Id('snapshot identifier'),
  runId: Type.String({
    description: 'shared by the snapshots of every coin taken together, at the same block',
  }),
  chainId: Type.String({ description: 'EVM chain id' }),
  coin: Type.String({ description: 'coin reference' }),
  asset: Type.String({ description: '`native`, or the ERC-20 contract (lower case)' }),
  decimals: Type.Integer({ description: 'decimal places of the base unit' }),
  block: Units('the block the reserves were read at; the ledger had seen the chain up to it'),
  blockHash: Hash("that block's hash"),
  takenAt: Timestamp,
  root: Hash('the Merkle-sum root hash of the liabilities'),
  liabilitiesTotal: Units('the root sum: what the platform owes in this coin, base units'),
  reservesTotal: Units('what the reserve addresses held at the block, base units'),
  ratio: Type.Union([Type.String({ pattern: '^[0-9]+\\.[0-9]{4}$' }), Type.Null()], {
    description: 'reserves / liabilities, 4 decimals rounded down; null when nothing is owed',
  }),
  leafCount: Type.Integer({ description: 'leaves of the tree' }),
  message: Type.String({ description: 'the attestation message (docs/reserves.md)' }),
  signature: Signature('EIP-191 signature of `message` by `attestationAddress`'),
  attestationAddress: Address,
  trigger: Type.Union([Type.Literal('schedule'), Type.Literal('operator')]),
}

const snapshotExample = {
  id: '65f1c0a2b3c4d5e6f7a8b9e1',
  runId: '65f1c0a2b3c4d5e6f7a8b9e0',
  chainId: '31337',
  coin: 'usdc',
  asset: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  decimals: 6,
  block: '1204',
  blockHash: '0x8d2af277c303adcd8461d0135b05efd804373408cb126f58c2f68d078bafafa9',
  takenAt: '2026-01-01T00:00:00.000Z',
  root: EXAMPLE_ROOT,
  liabilitiesTotal: '350000000',
  reservesTotal: '350000000',
  ratio: '1.0000',
  leafCount: 3,
  message: 'WorkPay proof of reserves v1\nsnapshot: 65f1c0a2b3c4d5e6f7a8b9e1\n…',
  signature: EXAMPLE_SIG,
  attestationAddress: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  trigger: 'schedule',
}

export const ReserveSnapshot = Type.Object(snapshotFields, {
  $id: 'ReserveSnapshot',
  description: 'A proof-of-reserves snapshot of one coin',
  examples: [snapshotExample],
})

export const ReserveSnapshotList = Type.Object(
  { snapshots: Type.Array(ReserveSnapshot) },
  { examples: [{ snapshots: [snapshotExample] }] },
)

const ReserveAddress = Type.Object(
  {
    address: Address,
    balance: Units('on-chain balance at the block, base units'),
    signature: Signature("EIP-191 signature of the snapshot's message by this address's own key"),
  },
  {
    examples: [
      { address: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', balance: '350000000', signature: EXAMPLE_SIG },
    ],
  },
)

export const ReserveSnapshotDetail = Type.Object(
  { ...snapshotFields, reserves: Type.Array(ReserveAddress) },
  {
    examples: [
      {
        ...snapshotExample,
        reserves: [
          {
            address: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            balance: '350000000',
            signature: EXAMPLE_SIG,
          },
        ],
      },
    ],
  },
)

const ProofLeaf = Type.Object({
  kind: Type.Union([Type.Literal('wallet'), Type.Literal('escrow'), Type.Literal('platform')]),
  id: Type.String({ description: 'the leaf label: `user:<your id>` or `escrow:<escrow id>`' }),
  balance: Units('the balance in the leaf, base units'),
  salt: Hash('the leaf salt, 32 bytes'),
  hash: Hash('the leaf hash'),
  index: Type.Integer({ description: 'position among the leaves (ordered by hash)' }),
  path: Type.Array(
    Type.Object({
      side: Type.Union([Type.Literal('left'), Type.Literal('right')], {
        description: 'where the sibling sits next to the node being recomputed',
      }),
      hash: Hash('sibling hash'),
      sum: Units('sibling sum'),
    }),
    { description: 'siblings from the leaf up to the root' },
  ),
})

export const ReserveProof = Type.Object(
  { snapshot: ReserveSnapshot, leaves: Type.Array(ProofLeaf) },
  {
    examples: [
      {
        snapshot: snapshotExample,
        leaves: [
          {
            kind: 'wallet',
            id: 'user:65f1c0a2b3c4d5e6f7a8b9c0',
            balance: '100000000',
            salt: `0x${'01'.repeat(32)}`,
            hash: '0xab8e9693c5f8231c78dd054cab75ecc7321dad0e2a261343fa394bcd6de37c3a',
            index: 0,
            path: [
              {
                side: 'right',
                hash: '0xe4e486fa3a36aa9c2f9dcbceaa7fc10b887e159c7e8e317d336a4911bc2c48b1',
                sum: '0',
              },
              {
                side: 'right',
                hash: '0x2fc80d20e2415268fd2842d8b0fc1b668bc58e225d4b9eafbea4125a31b9b5cb',
                sum: '250000000',
              },
            ],
          },
        ],
      },
    ],
  },
)

export const SnapshotParams = Type.Object({ id: Id('snapshot identifier') }, { additionalProperties: false })

export const HistoryQuery = Type.Object(
  {
    coin: Type.Optional(Type.String({ maxLength: 64, description: 'only this coin' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 60 })),
  },
  { additionalProperties: false },
)

export const SnapshotRequest = Type.Object(
  {
    reason: Type.String({ minLength: 3, maxLength: 500, description: 'why the snapshot is taken (audited)' }),
  },
  { additionalProperties: false, examples: [{ reason: 'Quarterly attestation for the auditors' }] },
)
