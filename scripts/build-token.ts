// Compiles contracts/DevToken.sol with solc (pure JS, no download) and writes its ABI and bytecode
// to src/platform/chain/contracts/DevToken.json, which the devnet deploys at start-up.
// Run: npx tsx scripts/build-token.ts
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import solc from 'solc'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = readFileSync(join(root, 'contracts/DevToken.sol'), 'utf8')
const input = {
  language: 'Solidity',
  sources: { 'DevToken.sol': { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // paris: no PUSH0, so the bytecode also runs on chains that lag behind Shanghai
    evmVersion: 'paris',
    outputSelection: { '*': { DevToken: ['abi', 'evm.bytecode.object'] } },
  },
}
const output = JSON.parse(solc.compile(JSON.stringify(input)))
const problems = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
if (problems.length > 0) {
  for (const p of problems) console.error(p.formattedMessage)
  process.exit(1)
}
const contract = output.contracts['DevToken.sol'].DevToken
const artifact = {
  contractName: 'DevToken',
  compiler: `solc ${solc.version()}`,
  abi: contract.abi,
  bytecode: `0x${contract.evm.bytecode.object}`,
}
const out = join(root, 'src/platform/chain/contracts/DevToken.json')
writeFileSync(out, `${JSON.stringify(artifact, null, 2)}\n`)
console.log(`wrote ${out} (${contract.evm.bytecode.object.length / 2} bytes of bytecode)`)
