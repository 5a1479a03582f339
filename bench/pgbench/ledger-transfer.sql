-- One transfer of 1 base unit between two bench accounts (bench/pgbench/ledger.sh): the pair's
-- arguments are read from pgbench_ledger_pairs, built before the run, by one index lookup, so
-- the call's cost is the function's and not the script's.
\set a random(1, :pairs)
BEGIN;
select w.claimed, w.present, w.fits
  from pgbench_ledger_pairs p,
       ledger_write_transfer(substr(md5(random()::text), 1, 24), 'pgbench:' || md5(random()::text), '',
         'usdc', '', '', now(), p.accounts, p.deltas, p.released, p.entry_accounts, p.entry_amounts) w
 where p.n = :a;
COMMIT;
