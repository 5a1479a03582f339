// Public contract of the payment configuration endpoints: the Coin and RPC configuration resources.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, Timestamp } from '../../http/schemas.ts'

export const AVAX_COIN = {
  _id: EX.coinId,
  name: 'Avalanche',
  symbol: 'AVAX',
  reference: 'avax',
  icon: EX.avaxIcon,
  decimal: '18',
  isToken: false,
  rpcChainId: '31337',
  active: true,
  order: 1,
  createdAt: EX.created,
  updatedAt: EX.created,
  __v: 0,
}
const USDC_COIN = {
  _id: EX.tokenCoinId,
  name: 'USD Coin',
  symbol: 'USDC',
  reference: 'usdc',
  icon: EX.usdcIcon,
  contractAddress: EX.usdcContract,
  decimal: '6',
  isToken: true,
  rpcChainId: '31337',
  active: true,
  order: 2,
  createdAt: EX.created,
  updatedAt: EX.created,
  __v: 0,
}

export const CoinSchema = Type.Object(
  {
    _id: Id(),
    name: Type.String({ description: 'display name' }),
    symbol: Type.String({ description: 'ticker' }),
    reference: Type.String({
      description: 'lowercase slug: the coin key in wallets, rates and transactions',
    }),
    icon: Type.String({ description: 'image URL' }),
    contractAddress: Type.Optional(
      Type.String({ description: 'token contract address; absent for the native coin' }),
    ),
    decimal: Type.String({ description: 'number of decimal places' }),
    isToken: Type.Boolean({ description: 'true for a token, false for the native currency' }),
    rpcChainId: Type.String({ description: 'chain identifier' }),
    active: Type.Boolean(),
    order: Type.Number({ description: 'display order' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  {
    $id: 'Coin',
    additionalProperties: false,
    description: 'A supported coin: the chain’s native coin or a token on it.',
    examples: [AVAX_COIN, USDC_COIN],
  },
)

export const RpcConfigSchema = Type.Object(
  {
    _id: Id(),
    rpcName: Type.String(),
    rpcChainId: Type.String(),
    rpcUrls: Type.Array(Type.String()),
    blockExplorerUrls: Type.Array(Type.String()),
    rpcNativeCurrency: Type.Object({
      name: Type.String(),
      symbol: Type.String(),
      decimals: Type.String(),
    }),
    active: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  {
    $id: 'RpcConfig',
    description: 'The chain the coins live on, for wallet apps.',
    examples: [
      {
        _id: EX.chainId,
        rpcName: 'WorkPay Devnet',
        rpcChainId: '31337',
        rpcUrls: ['http://127.0.0.1:8545'],
        blockExplorerUrls: [],
        rpcNativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: '18' },
        active: true,
        createdAt: EX.created,
        updatedAt: EX.created,
        __v: 0,
      },
    ],
  },
)

export const ExchangeRatesSchema = Type.Record(Type.String(), Type.Number(), {
  $id: 'ExchangeRates',
  description: 'USD per whole coin, keyed by coin reference',
  examples: [{ avax: 25, usdc: 1 }],
})
