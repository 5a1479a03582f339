-- One transfer of 1 base unit between two different bench accounts (bench/pgbench/ledger.sh).
\set a random(1, :accounts)
\set b (:a % :accounts) + 1
BEGIN;
select claimed, present, fits from ledger_write_transfer(
  substr(md5(random()::text), 1, 24), 'pgbench:' || md5(random()::text), '', 'usdc', '', '', now(),
  (select array_agg(id order by id) from pgbench_ledger_accounts where n in (:a, :b)),
  (select array_agg(case when n = :a then -1 else 1 end order by id) from pgbench_ledger_accounts where n in (:a, :b))::numeric[],
  array[0, 0]::numeric[],
  array[(select id from pgbench_ledger_accounts where n = :a), (select id from pgbench_ledger_accounts where n = :b)],
  array[-1, 1]::numeric[]);
COMMIT;
