-- An execution records the rollout request and tool instance that sent it, when the client says (the
-- x-fusebox-request-id and x-fusebox-tool-instance headers), so that a dumped sample's tool calls join to the
-- runs its own rollout made rather than to every run of the same code. Nullable columns: no table rewrite.
ALTER TABLE "execution" ADD COLUMN "request_id" VARCHAR(128),
ADD COLUMN "tool_instance" VARCHAR(128);

CREATE INDEX "execution_request_id_idx" ON "execution"("request_id");
