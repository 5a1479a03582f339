// Sign-in with an Ethereum wallet (spec #10–#12).
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AccountService } from '../account/types.ts'
import type { FlowService } from './flows.ts'
import type { AuthService } from './service.ts'
import { web3Routes } from './web3-routes.ts'
import { type Web3Chain, Web3Service } from './web3-service.ts'

export function buildWeb3(d: {
  db: Db
  config: Config
  clock: Clock
  log: Logger
  flows: FlowService
  auth: AuthService
  accounts: AccountService
  chain: Web3Chain
}) {
  const { chain, ...rest } = d
  return { web3: new Web3Service({ ...rest, chain: () => chain }) }
}

export async function web3Http(app: FastifyInstance, s: { web3: Web3Service; config: Config }) {
  await app.register(web3Routes, { web3: s.web3, config: s.config })
}
