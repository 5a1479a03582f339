// Creates the `test` database on the CI PostgreSQL server when it is missing.
import pg from 'pg'

const base = 'postgres://postgres@127.0.0.1:5432'
const client = new pg.Client({ connectionString: `${base}/postgres` })
await client.connect()
const { rowCount } = await client.query("select 1 from pg_database where datname = 'test'")
if (!rowCount) await client.query('create database test')
await client.end()
console.log('PostgreSQL ready: database test')
