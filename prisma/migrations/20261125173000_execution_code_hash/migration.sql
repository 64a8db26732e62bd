-- A rollout sample's tool call is joined to the executions that ran its code by equality on the whole text.
-- A hash index takes code of any length (a b-tree entry is limited to a third of a page).
CREATE INDEX "execution_code_idx" ON "execution" USING HASH ("code");
