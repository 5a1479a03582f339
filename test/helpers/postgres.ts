// A new, empty PostgreSQL database on the server the suite uses (`postgresUrl`, given by the
// global set-up), under a random name starting with `prefix`; `drop` removes it, whoever is still
// connected.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'

async function asAdmin(query: string) {
  const client = new pg.Client({ connectionString: inject('postgresUrl') })
  await client.connect()
  try {
    await client.query(query)
  } finally {
    await client.end()
  }
}

export async function scratchPostgres(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await asAdmin(`create database ${name}`)
  const url = new URL(inject('postgresUrl'))
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => asAdmin(`drop database if exists ${name} with (force)`) }
}
