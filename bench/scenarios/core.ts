// The platform's base cases: liveness, an authenticated read, and login (argon2id-bound).
import type { BenchContext, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const user = await ctx.createUser()
  return [
    { name: 'GET /health', path: '/health' },
    {
      name: 'GET /v1/account (authenticated)',
      path: '/v1/account',
      headers: { authorization: `Bearer ${user.token}` },
    },
    {
      name: 'POST /v1/auth/login',
      method: 'POST',
      path: '/v1/auth/login',
      body: { email: user.email, password: user.password },
      connections: 10,
    },
  ]
}
