#!/usr/bin/env bash
# The database's own ceiling for the ledger's transfer, without the service: pgbench (C, 20
# clients) calls ledger_write_transfer between two of the accounts a ledger bench run seeds, each
# call in its own transaction (BEGIN, the call, COMMIT), as the service does, and the call a
# prepared statement, as the service sends it (a named statement, parsed once per connection).
# Each pair's arguments (account ids in id order, deltas, entries) are built once, before the run,
# into pgbench_ledger_pairs: computing them inside each call (four subqueries and two array_agg)
# cost the database a third of its rate on the bench machine, a cost the service's call does not
# have. Compare its transfers per second with the `ledger` scenario's on the same machine, over
# the same transport (TCP or the Unix socket); the scenario runs it itself when pgbench is
# installed.
#
#   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npm run bench -- --only ledger
#   bench/pgbench/ledger.sh postgres://postgres@127.0.0.1:5432/bench [seconds] [owner prefix]
#
# The owner prefix picks the accounts of one scenario run (`le<tag>`); by default, every run's.
set -euo pipefail
url=${1:?a PostgreSQL URL of a database the ledger scenario ran on}
seconds=${2:-10}
prefix=${3:-le}
here=$(cd "$(dirname "$0")" && pwd)
psql "$url" -qv ON_ERROR_STOP=1 -v prefix="$prefix" <<'SQL'
drop table if exists pgbench_ledger_pairs;
create table pgbench_ledger_pairs as
  with accounts as (
    select row_number() over (order by id)::int as n, count(*) over ()::int as total, id
      from ledger_accounts
     where kind = 'user' and coin = 'usdc' and owner_id like :'prefix' || '%'
  )
  select a.n,
         array[least(a.id, b.id), greatest(a.id, b.id)]::char(24)[] as accounts,
         (case when a.id < b.id then array[-1, 1] else array[1, -1] end)::numeric[] as deltas,
         array[0, 0]::numeric[] as released,
         array[a.id, b.id]::char(24)[] as entry_accounts,
         array[-1, 1]::numeric[] as entry_amounts
    from accounts a
    join accounts b on b.n = a.n % a.total + 1
   where a.total >= 2;
create unique index on pgbench_ledger_pairs (n);
SQL
count=$(psql "$url" -Atc "select count(*) from pgbench_ledger_pairs")
if [ "$count" -lt 2 ]; then
  psql "$url" -qc "drop table pgbench_ledger_pairs"
  echo "no ledger bench accounts in this database: run the ledger scenario on it first" >&2
  exit 1
fi
pgbench "$url" -n -M prepared -c 20 -j 2 -T "$seconds" -D pairs="$count" -f "$here/ledger-transfer.sql"
psql "$url" -qc "drop table pgbench_ledger_pairs"
psql "$url" -Atc "select 'entries sum: ' || coalesce(sum(amount), 0) from ledger_entries where coin = 'usdc'"
