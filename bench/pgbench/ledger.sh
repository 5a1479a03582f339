#!/usr/bin/env bash
# The database's own ceiling for the ledger's transfer, without the service: pgbench (C, 20
# clients) calls ledger_write_transfer between two of the 1,000 accounts a ledger bench run seeds,
# each call in its own transaction (BEGIN, the call, COMMIT), as the service does, and the call a
# prepared statement, as the service sends it (a named statement, parsed once per connection; with
# pgbench's default simple protocol, each call is parsed and planned again, and the database made
# a quarter fewer transfers on the same machine). Compare its transfers per second with the
# `ledger` scenario's on the same machine, over the same transport (TCP or the Unix socket).
#
#   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npm run bench -- --only ledger
#   bench/pgbench/ledger.sh postgres://postgres@127.0.0.1:5432/bench [seconds]
set -euo pipefail
url=${1:?a PostgreSQL URL of a database the ledger scenario ran on}
seconds=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
psql "$url" -qv ON_ERROR_STOP=1 <<'SQL'
drop table if exists pgbench_ledger_accounts;
create table pgbench_ledger_accounts as
  select row_number() over (order by id)::int as n, id
    from ledger_accounts where kind = 'user' and coin = 'usdc' and owner_id like 'le%';
create unique index on pgbench_ledger_accounts (n);
SQL
count=$(psql "$url" -Atc "select count(*) from pgbench_ledger_accounts")
if [ "$count" -lt 2 ]; then
  echo "no ledger bench accounts in this database: run the ledger scenario on it first" >&2
  exit 1
fi
pgbench "$url" -n -M prepared -c 20 -j 2 -T "$seconds" -D accounts="$count" -f "$here/ledger-transfer.sql"
psql "$url" -qc "drop table pgbench_ledger_accounts"
psql "$url" -Atc "select 'entries sum: ' || coalesce(sum(amount), 0) from ledger_entries where coin = 'usdc'"
