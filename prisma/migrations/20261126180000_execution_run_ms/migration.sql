-- The executions list can show the slowest first: an index on the run time, so that its first page reads a
-- page of rows instead of sorting the whole table.
CREATE INDEX "execution_run_ms_idx" ON "execution"("run_ms");
