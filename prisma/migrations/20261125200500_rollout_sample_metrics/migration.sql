-- What the rollout browser sorts, filters and charts by, counted once at import instead of at every query: a
-- chart of response length over 100 steps would otherwise read every sample's whole text (about 1 GB for
-- 100k samples). Rows imported before are counted here, the way the importer counts them.
ALTER TABLE "rollout_sample" ADD COLUMN "response_chars" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "tool_calls" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "turns" INTEGER NOT NULL DEFAULT 0;

UPDATE "rollout_sample" SET
  "response_chars" = length("output"),
  "tool_calls" = (length("output") - length(replace("output", '<tool_call>', ''))) / length('<tool_call>'),
  "turns" = (CASE WHEN "output" = '' THEN 0 ELSE 1 END)
    + (length("output") - length(replace("output", E'\nassistant\n', ''))) / length(E'\nassistant\n');
