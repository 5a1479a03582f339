// One behaviour suite for every ChainAdapter implementation: the devnet in-process and the rpc
// adapter over HTTP JSON-RPC run exactly these tests. `devnet` is the chain's own controls (for
// the rpc adapter, those of the devnet behind its URL).
import { type Address, erc20Abi, type Hex, keccak256, recoverMessageAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { type ChainAdapter, ChainError, type DevnetControls } from '../../src/platform/chain/types.ts'

export interface SuiteContext {
  adapter: () => ChainAdapter
  devnet: () => DevnetControls
  /** which dev account this file pays from, so two files never race on one nonce */
  accountIndex: number
}

const ONE_AVAX = 10n ** 18n
const fresh = () => {
  const privateKey = generatePrivateKey()
  return { privateKey, address: privateKeyToAccount(privateKey).address }
}

export function adapterSuite(name: string, ctx: SuiteContext) {
  const payer = () => ctx.devnet().accounts[ctx.accountIndex]!

  describe(`${name}: identity and coins`, () => {
    it('reports the dev chain id and the configured coins with resolved token addresses', async () => {
      const chain = ctx.adapter()
      expect(chain.chainId).toBe(31337)
      expect(await chain.client.getChainId()).toBe(31337)
      expect(chain.coins.map((c) => [c.reference, c.decimals, c.isToken])).toEqual([
        ['avax', 18, false],
        ['usdc', 6, true],
      ])
      const usdc = chain.coin('usdc')
      expect(usdc.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(chain.coin('AVAX').contractAddress).toBeNull()
      // the deployed contract really is the configured token
      const decimals = await chain.client.readContract({
        address: usdc.contractAddress!,
        abi: erc20Abi,
        functionName: 'decimals',
      })
      expect(decimals).toBe(6)
      expect(() => chain.coin('doge')).toThrow(ChainError)
    })

    it('has a funded treasury and gas wallet', async () => {
      const chain = ctx.adapter()
      expect(chain.treasury.address).not.toBe(chain.gasWallet.address)
      expect(await chain.balanceOf(chain.treasury.address, 'usdc')).toBeGreaterThan(0n)
      expect(await chain.balanceOf(chain.treasury.address, 'avax')).toBeGreaterThan(0n)
      expect(await chain.balanceOf(chain.gasWallet.address, 'avax')).toBeGreaterThan(0n)
    })
  })

  describe(`${name}: transfers`, () => {
    it('sends the native coin from a dev account to a fresh address; balance, receipt and block show it', async () => {
      const chain = ctx.adapter()
      const to = fresh().address
      const nonce = await chain.getNonce(payer().address)
      const signed = await chain.signTransfer(payer().privateKey, {
        coin: 'avax',
        to,
        amount: ONE_AVAX,
        nonce,
      })
      expect(signed).toMatchObject({
        from: payer().address,
        to,
        coin: 'avax',
        amount: ONE_AVAX,
        nonce,
        gas: 21_000n,
      })
      expect(signed.hash).toBe(keccak256(signed.raw))
      // signing does not broadcast
      expect(await chain.getReceipt(signed.hash)).toBeNull()
      expect(await chain.balanceOf(to, 'avax')).toBe(0n)

      expect(await chain.broadcast(signed.raw)).toBe(signed.hash)
      const receipt = await chain.waitForReceipt(signed.hash)
      expect(receipt).toMatchObject({
        hash: signed.hash,
        status: 'success',
        from: payer().address,
        gasUsed: 21_000n,
      })
      expect(receipt.fee).toBe(receipt.gasUsed * receipt.effectiveGasPrice)
      expect(await chain.balanceOf(to, 'avax')).toBe(ONE_AVAX)
      expect(await chain.balances(to)).toEqual({ avax: ONE_AVAX, usdc: 0n })

      const block = await chain.getBlock(receipt.blockNumber)
      expect(block?.transactions.find((t) => t.hash === signed.hash)).toMatchObject({
        from: payer().address,
        to,
        value: ONE_AVAX,
        input: '0x',
      })
      const transfers = await chain.nativeTransfers(receipt.blockNumber, receipt.blockNumber, {
        to: [to.toLowerCase()],
      })
      expect(transfers).toEqual([
        {
          coin: 'avax',
          hash: signed.hash,
          from: payer().address,
          to,
          amount: ONE_AVAX,
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
        },
      ])
      expect(
        await chain.nativeTransfers(receipt.blockNumber, receipt.blockNumber, { to: [fresh().address] }),
      ).toEqual([])
    })

    it('sends a token: balance, receipt and Transfer log read back through the adapter', async () => {
      const chain = ctx.adapter()
      const from = fresh()
      const to = fresh().address
      await ctx.devnet().fund(from.address, 'usdc', 5_000_000n)
      await ctx.devnet().fund(from.address, 'avax', ONE_AVAX)
      expect(await chain.balances(from.address)).toEqual({ avax: ONE_AVAX, usdc: 5_000_000n })

      const gas = await chain.estimateTransferGas('usdc', from.address, to, 1_250_000n)
      expect(gas).toBeGreaterThan(21_000n)
      const signed = await chain.signTransfer(from.privateKey, {
        coin: 'usdc',
        to,
        amount: 1_250_000n,
        nonce: await chain.getNonce(from.address),
      })
      expect(signed.to).toBe(to)
      expect(signed.maxFee).toBeGreaterThan(0n)
      await chain.broadcast(signed.raw)
      const receipt = await chain.waitForReceipt(signed.hash)
      expect(receipt.status).toBe('success')
      expect(await chain.balanceOf(to, 'usdc')).toBe(1_250_000n)
      expect(await chain.balanceOf(from.address, 'usdc')).toBe(3_750_000n)
      expect(await chain.balanceOf(from.address, 'avax')).toBe(ONE_AVAX - receipt.fee)

      const logs = await chain.tokenTransfers(receipt.blockNumber, receipt.blockNumber)
      expect(logs).toContainEqual({
        coin: 'usdc',
        token: chain.coin('usdc').contractAddress,
        hash: signed.hash,
        logIndex: expect.any(Number),
        from: from.address,
        to,
        amount: 1_250_000n,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
      })
      // filters by recipient and by sender, in any case
      const head = await chain.blockNumber()
      expect(await chain.tokenTransfers(0n, head, { to: [to.toLowerCase()] })).toHaveLength(1)
      const sent = await chain.tokenTransfers(0n, head, {
        from: [from.address.toUpperCase().replace('0X', '0x')],
      })
      expect(sent.map((l) => l.hash)).toEqual([signed.hash])
      // a token transfer moves no native value to the recipient
      expect(await chain.nativeTransfers(receipt.blockNumber, receipt.blockNumber, { to: [to] })).toEqual([])
    })

    it('broadcasting the same signed transaction twice is one transfer', async () => {
      const chain = ctx.adapter()
      const to = fresh().address
      const nonce = await chain.getNonce(payer().address, 'pending')
      const signed = await chain.signTransfer(payer().privateKey, { coin: 'avax', to, amount: 7n, nonce })
      expect(await chain.broadcast(signed.raw)).toBe(signed.hash)
      expect(await chain.broadcast(signed.raw)).toBe(signed.hash)
      await chain.waitForReceipt(signed.hash)
      expect(await chain.broadcast(signed.raw)).toBe(signed.hash)
      expect(await chain.balanceOf(to, 'avax')).toBe(7n)
      expect(await chain.getNonce(payer().address, 'latest')).toBe(nonce + 1)
    })

    it('while blocks are not mined: pending nonce counts the mempool, a re-broadcast is "already known"', async () => {
      const chain = ctx.adapter()
      const to = fresh().address
      await ctx.devnet().setAutomine(false)
      try {
        const latest = await chain.getNonce(payer().address, 'latest')
        const signed = await chain.signTransfer(payer().privateKey, {
          coin: 'avax',
          to,
          amount: 3n,
          nonce: latest,
        })
        await chain.broadcast(signed.raw)
        expect(await chain.broadcast(signed.raw)).toBe(signed.hash)
        expect(await chain.getNonce(payer().address, 'pending')).toBe(latest + 1)
        expect(await chain.getNonce(payer().address, 'latest')).toBe(latest)
        expect(await chain.getReceipt(signed.hash)).toBeNull()
        await ctx.devnet().mine()
        expect((await chain.getReceipt(signed.hash))?.status).toBe('success')
      } finally {
        await ctx.devnet().setAutomine(true)
      }
    })

    it('a different transaction on a used nonce is NONCE_TOO_LOW', async () => {
      const chain = ctx.adapter()
      const nonce = await chain.getNonce(payer().address)
      const first = await chain.signTransfer(payer().privateKey, {
        coin: 'avax',
        to: fresh().address,
        amount: 1n,
        nonce,
      })
      await chain.broadcast(first.raw)
      const second = await chain.signTransfer(payer().privateKey, {
        coin: 'avax',
        to: fresh().address,
        amount: 2n,
        nonce,
      })
      await expect(chain.broadcast(second.raw)).rejects.toMatchObject({
        code: 'NONCE_TOO_LOW',
        retryable: false,
      })
    })

    it('refuses to spend what the sender does not have', async () => {
      const chain = ctx.adapter()
      const poor = fresh()
      await expect(
        chain.estimateTransferGas('usdc', poor.address, fresh().address, 1n),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' })
      const signed = await chain.signTransfer(poor.privateKey, {
        coin: 'avax',
        to: fresh().address,
        amount: 1n,
        nonce: 0,
      })
      await expect(chain.broadcast(signed.raw)).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' })
    })

    it('treasury and gas wallet sign and send with their own keys', async () => {
      const chain = ctx.adapter()
      const to = fresh().address
      const sent = await chain.gasWallet.send({ coin: 'avax', to, amount: 1000n })
      expect(sent.from).toBe(chain.gasWallet.address)
      await chain.waitForReceipt(sent.hash)
      const pay = await chain.treasury.send({ coin: 'usdc', to, amount: 42n })
      await chain.waitForReceipt(pay.hash)
      expect(await chain.balances(to)).toEqual({ avax: 1000n, usdc: 42n })
      // signing only: nothing moves until broadcast
      const later = await chain.treasury.signTransfer({ coin: 'usdc', to, amount: 1n })
      expect(await chain.getReceipt(later.hash)).toBeNull()
      expect(JSON.stringify(Object.keys(chain.treasury))).not.toMatch(/key/i)
    })
  })

  describe(`${name}: outage`, () => {
    it('a chain that is down fails every call with a retryable UNAVAILABLE, then recovers', async () => {
      const chain = ctx.adapter()
      ctx.devnet().setDown(true)
      try {
        await expect(chain.blockNumber()).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true })
        await expect(chain.balanceOf(payer().address, 'usdc')).rejects.toMatchObject({ code: 'UNAVAILABLE' })
        const signed = await chain.signTransfer(payer().privateKey, {
          coin: 'avax',
          to: fresh().address,
          amount: 1n,
          nonce: 0,
          gas: 21_000n,
          fees: { type: 'eip1559', maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
        })
        await expect(chain.broadcast(signed.raw)).rejects.toMatchObject({ code: 'UNAVAILABLE' })
      } finally {
        ctx.devnet().setDown(false)
      }
      expect(await chain.blockNumber()).toBeGreaterThan(0n)
    })
  })

  describe(`${name}: reads and validation`, () => {
    it('estimates EIP-1559 fees and reads blocks', async () => {
      const chain = ctx.adapter()
      const fees = await chain.estimateFees()
      expect(fees.type).toBe('eip1559')
      if (fees.type === 'eip1559') expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(fees.maxPriorityFeePerGas)
      const head = await chain.blockNumber()
      expect((await chain.getBlock(head))?.number).toBe(head)
      expect(await chain.getBlock(head + 1000n)).toBeNull()
    })

    it('verifies signed messages through the public client', async () => {
      const chain = ctx.adapter()
      const who = privateKeyToAccount(generatePrivateKey())
      const signature = await who.signMessage({ message: 'hello' })
      expect(await chain.client.verifyMessage({ address: who.address, message: 'hello', signature })).toBe(
        true,
      )
      expect(await recoverMessageAddress({ message: 'hello', signature })).toBe(who.address)
    })

    it('rejects malformed input with INVALID_ARGUMENT or UNKNOWN_COIN, never leaking a key', async () => {
      const chain = ctx.adapter()
      const key = payer().privateKey
      await expect(chain.balanceOf('0x1234', 'avax')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
      await expect(chain.balanceOf(payer().address, 'nope')).rejects.toMatchObject({ code: 'UNKNOWN_COIN' })
      await expect(
        chain.signTransfer('0xnot-a-key' as Hex, { coin: 'avax', to: payer().address, amount: 1n, nonce: 0 }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
      const err = await chain
        .signTransfer(key, { coin: 'avax', to: 'not-an-address' as Address, amount: 1n, nonce: 0 })
        .catch((e: Error) => e)
      expect(err).toMatchObject({ code: 'INVALID_ARGUMENT' })
      expect(String((err as Error).message)).not.toContain(key.slice(2))
      await expect(
        chain.signTransfer(key, { coin: 'avax', to: payer().address, amount: -1n, nonce: 0 }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
      await expect(chain.broadcast('0xzz' as Hex)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
    })
  })

  // Last: it leaves a coin registered on the adapter the file shares.
  describe(`${name}: tokens added at run time`, () => {
    it('reads what a token contract says of itself; an address without one is REJECTED', async () => {
      const chain = ctx.adapter()
      const usdc = chain.coin('usdc').contractAddress!
      expect(await chain.tokenInfo(usdc.toLowerCase())).toEqual({
        address: usdc,
        decimals: 6,
        name: 'USD Coin',
        symbol: 'USDC',
      })
      await expect(chain.tokenInfo(fresh().address)).rejects.toMatchObject({ code: 'REJECTED' })
      await expect(chain.tokenInfo('0x1234')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
    })

    it('registers a token once, in display order; a reference or contract of another coin is refused', () => {
      const chain = ctx.adapter()
      const usdc = chain.coin('usdc')
      const token = fresh().address
      const coin = {
        reference: 'tkn',
        name: 'Token',
        symbol: 'TKN',
        icon: '',
        decimals: 8,
        isToken: true,
        contractAddress: token.toLowerCase() as Address,
        order: 2,
        active: true,
        usdRate: '0',
      }
      expect(() => chain.coin('tkn')).toThrow(ChainError)
      const added = chain.addToken(coin)
      expect(added.contractAddress).toBe(token)
      expect(chain.coin('TKN')).toBe(added)
      // after the configured coin of the same order
      expect(chain.coins.map((c) => c.reference)).toEqual(['avax', 'usdc', 'tkn'])
      expect(chain.addToken(coin)).toBe(added)
      const refused = (c: Partial<typeof coin>) => () => chain.addToken({ ...coin, ...c })
      expect(refused({ contractAddress: fresh().address })).toThrow(/reference "tkn" is taken/)
      expect(refused({ reference: 'other', contractAddress: usdc.contractAddress! })).toThrow(
        /the coin "usdc" already/,
      )
      expect(refused({ reference: 'other', isToken: false })).toThrow(ChainError)
      expect(refused({ reference: 'Other!' })).toThrow(ChainError)
      expect(refused({ reference: 'other', decimals: 37 })).toThrow(ChainError)
    })
  })
}
