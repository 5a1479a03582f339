// Signs in and reads the wallet, typed end to end.
// Run: WORKPAY_URL=http://127.0.0.1:3000 WORKPAY_EMAIL=ada@example.com WORKPAY_PASSWORD='Str0ng!pass' \
//        node --import tsx clients/typescript/example.ts
import { createWorkPayClient, describeError, type Wallet } from './index.ts'

const baseUrl = process.env.WORKPAY_URL ?? 'http://127.0.0.1:3000'
const email = process.env.WORKPAY_EMAIL ?? 'ada@example.com'
const password = process.env.WORKPAY_PASSWORD ?? 'Str0ng!pass'

let token: string | undefined
const api = createWorkPayClient({ baseUrl, token: () => token })

const login = await api.POST('/v1/auth/login', { body: { email, password } })
if (!login.data) throw new Error(`login failed: ${describeError(login.error)}`)
const session = login.data.data
if ('twoFaRequired' in session)
  throw new Error(`two-factor (${session.twoFaType}) is on: finish with POST /v1/auth/login/2fa`)
token = session.token

const { data, error } = await api.GET('/v1/wallet')
if (!data) throw new Error(`wallet: ${describeError(error)}`)
const wallet: Wallet = data.data
console.log(`total ${wallet.totalBalance} USD`)
for (const entry of wallet.wallets)
  console.log(`${entry.coin}: ${entry.amount} (${entry.usdValue} USD) at ${entry.address}`)
