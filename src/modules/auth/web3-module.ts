// Sign-in with an Ethereum wallet (spec #10–#12).
import type { FeatureModule } from '../core.ts'
import { web3Routes } from './web3-routes.ts'
import { type Web3Chain, Web3Service } from './web3-service.ts'

declare module '../core.ts' {
  interface Services {
    web3: Web3Service
  }
}

export const web3Module: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const web3 = new Web3Service({
    db,
    config,
    clock,
    log,
    flows: services.flows,
    auth: services.auth,
    accounts: services.accounts,
    // Without a chain adapter: pure signature checks and the dev chain id.
    chain: () => services.chain as Web3Chain | undefined,
  })
  services.web3 = web3
  await app.register(web3Routes, { web3, config })
}
