// Lanes: at most `size` tasks at once, the others in their order of arrival; a task that fails
// frees its lane like one that succeeds. Password hashes and checks run on lanes of their own.
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { hashPassword, passwordLanes, verifyPassword } from '../../src/platform/crypto/passwords.ts'
import { Lanes, Turns } from '../../src/platform/lanes.ts'

/** A task that runs until `finish` or `fail` is called, and records when it started. */
function task(started: string[], name: string) {
  let finish!: () => void
  let fail!: (err: Error) => void
  const done = new Promise<string>((resolve, reject) => {
    finish = () => resolve(name)
    fail = reject
  })
  return {
    run: () => {
      started.push(name)
      return done
    },
    finish,
    fail,
  }
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('Lanes', () => {
  it('runs at most size tasks at once and starts the others in their order of arrival', async () => {
    const lanes = new Lanes(2)
    const started: string[] = []
    const tasks = ['a', 'b', 'c', 'd'].map((n) => task(started, n))
    const answers = tasks.map((t) => lanes.run(t.run))
    await settle()
    expect(started).toEqual(['a', 'b'])
    expect([lanes.running, lanes.waiting]).toEqual([2, 2])

    tasks[1]!.finish()
    await settle()
    expect(started).toEqual(['a', 'b', 'c'])
    expect([lanes.running, lanes.waiting]).toEqual([2, 1])

    // A failed task frees its lane too, and its caller gets the failure.
    tasks[0]!.fail(new Error('boom'))
    await expect(answers[0]).rejects.toThrow('boom')
    await settle()
    expect(started).toEqual(['a', 'b', 'c', 'd'])
    expect([lanes.running, lanes.waiting]).toEqual([2, 0])

    tasks[2]!.finish()
    tasks[3]!.finish()
    expect(await Promise.all(answers.slice(1))).toEqual(['b', 'c', 'd'])
    expect([lanes.running, lanes.waiting]).toEqual([0, 0])
  })

  it('runs a task at once while a lane is free', async () => {
    const lanes = new Lanes(1)
    expect(await lanes.run(async () => 7)).toBe(7)
    expect(await lanes.run(async () => 8)).toBe(8)
    expect(lanes.running).toBe(0)
  })

  it('refuses a size under one', () => {
    expect(() => new Lanes(0)).toThrow()
    expect(() => new Lanes(1.5)).toThrow()
  })
})

describe('Turns', () => {
  it('runs the tasks of one key one at a time in their order of arrival, other keys beside them', async () => {
    const turns = new Turns()
    const started: string[] = []
    const [a1, a2, a3, b1] = ['a1', 'a2', 'a3', 'b1'].map((n) => task(started, n))
    const answers = [turns.run('a', a1!.run), turns.run('a', a2!.run), turns.run('a', a3!.run)]
    const other = turns.run('b', b1!.run)
    await settle()
    expect(started).toEqual(['a1', 'b1'])
    expect(turns.size).toBe(2)

    // A failed task passes the turn on too, and its caller gets the failure.
    a1!.fail(new Error('boom'))
    await expect(answers[0]).rejects.toThrow('boom')
    await settle()
    expect(started).toEqual(['a1', 'b1', 'a2'])

    b1!.finish()
    expect(await other).toBe('b1')
    expect(turns.size).toBe(1)
    a2!.finish()
    await settle()
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3'])
    a3!.finish()
    expect(await Promise.all(answers.slice(1))).toEqual(['a2', 'a3'])
    // Nothing is kept for a key once its last task settled.
    expect(turns.size).toBe(0)
  })

  it('runs a task at once when its key has none before it', async () => {
    const turns = new Turns()
    expect(await turns.run('a', async () => 1)).toBe(1)
    const late = task([], 'late')
    const running = turns.run('a', late.run)
    expect(await turns.run('b', async () => 2)).toBe(2)
    late.finish()
    expect(await running).toBe('late')
    expect(turns.size).toBe(0)
  })
})

describe('password lanes', () => {
  it('hashes and checks passwords only on a free lane, leaving a core to the event loop', async () => {
    expect(passwordLanes.size).toBe(Math.max(1, availableParallelism() - 1))
    // Every lane taken by other work: a hash waits for one.
    const blockers = Array.from({ length: passwordLanes.size }, () => task([], 'blocker'))
    const held = blockers.map((b) => passwordLanes.run(b.run))
    let hashed: string | undefined
    const hashing = hashPassword('Str0ng!pass').then((h) => {
      hashed = h
      return h
    })
    await settle()
    expect(passwordLanes.waiting).toBe(1)
    expect(hashed).toBeUndefined()
    for (const b of blockers) b.finish()
    await Promise.all(held)
    const h = await hashing
    expect(await verifyPassword(h, 'Str0ng!pass')).toBe(true)
    expect(await verifyPassword(h, 'wrong-Pass1')).toBe(false)
    expect([passwordLanes.running, passwordLanes.waiting]).toEqual([0, 0])
  })
})
