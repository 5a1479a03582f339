// The wallet contract (the Wallet and Wallet entry resources, #18–#20).
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Code6, Password } from '../../http/schemas.ts'

export const WalletEntry = Type.Object(
  {
    id: Type.String({ description: 'the coin reference' }),
    amount: Type.String({
      description: 'balance in whole coins with exactly six decimals, rounded down (e.g. `0.000000`)',
    }),
    usdValue: Type.Number({ description: 'balance × USD rate, rounded to cents' }),
    address: Type.String({ description: 'the custodial blockchain address (EIP-55)' }),
    coin: Type.String({ description: 'ticker symbol' }),
    icon: Type.String(),
  },
  {
    $id: 'WalletEntry',
    description: 'The caller’s balance of one coin.',
    examples: [
      {
        id: 'avax',
        amount: '2.000000',
        usdValue: 50,
        address: EX.walletAddress,
        coin: 'AVAX',
        icon: EX.avaxIcon,
      },
    ],
  },
)

export const WalletSummary = Type.Object(
  {
    totalBalance: Type.Number({ description: 'sum of the wallets in USD' }),
    value: Type.Number({ description: 'equal to totalBalance' }),
    wallets: Type.Array(WalletEntry),
  },
  {
    $id: 'Wallet',
    description: 'The caller’s wallets, one per active coin, all on one custodial address.',
    examples: [
      {
        totalBalance: 50,
        value: 50,
        wallets: [
          {
            id: 'avax',
            amount: '2.000000',
            usdValue: 50,
            address: EX.walletAddress,
            coin: 'AVAX',
            icon: EX.avaxIcon,
          },
          {
            id: 'usdc',
            amount: '0.000000',
            usdValue: 0,
            address: EX.walletAddress,
            coin: 'USDC',
            icon: EX.usdcIcon,
          },
        ],
      },
    ],
  },
)

export const WalletIdParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'the wallet `_id` (#19) or the wallet entry `id` (#18, the coin reference)',
    }),
  },
  { additionalProperties: false },
)

export const CoinParams = Type.Object(
  { coin: Type.String({ minLength: 1, maxLength: 40, description: 'coin reference' }) },
  { additionalProperties: false },
)

export const CoinWallet = Type.Object(
  {
    _id: Type.String({ description: 'the wallet (ledger account) id' }),
    coin: Type.String({ description: 'ticker symbol' }),
    amount: Type.Number({ description: 'balance in whole coins' }),
    usdValue: Type.Number({ description: 'balance × USD rate, rounded to cents' }),
    icon: Type.String(),
  },
  {
    $id: 'CoinWallet',
    description: 'The caller’s wallet of one coin.',
    examples: [{ _id: EX.walletId, coin: 'AVAX', amount: 2, usdValue: 50, icon: EX.avaxIcon }],
  },
)

export const ExportKeyBody = Type.Object(
  {
    code: Code6,
    password: Password,
  },
  { additionalProperties: false, examples: [{ code: '482913', password: EX.password }] },
)

export const ExportKeyData = Type.Object(
  {
    secretKey: Type.String({ description: 'the wallet private key (0x-prefixed hex). Secret.' }),
    walletAddress: Type.String(),
  },
  {
    examples: [
      {
        secretKey: '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318',
        walletAddress: EX.walletAddress,
      },
    ],
  },
)
