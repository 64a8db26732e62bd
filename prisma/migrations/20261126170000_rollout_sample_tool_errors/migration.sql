-- The tool responses in each sample's response that show a traceback or a time limit, counted once at import
-- (`toolErrors` in packages/rollouts/src/tool-response-signals.ts) so that the browser can filter, sort and chart
-- by them. Rows imported before are counted here by the same rules, written for Postgres's regular expressions:
-- - messages are cut at role lines (`\nrole\n`); a newline is put first so that a role line may open the text.
--   The leading `\n*?` makes the whole expression non-greedy (Postgres takes its first quantifier's), so each
--   message ends at the next role line, not at the last one;
-- - a `tool` message is one response; a `user` message made only of `<tool_response>` blocks is one per block;
-- - COLLATE "C" keeps classes and case-folding to ASCII, as the JavaScript rules have them.
ALTER TABLE "rollout_sample" ADD COLUMN "tool_errors" INTEGER NOT NULL DEFAULT 0;

UPDATE "rollout_sample" AS sample SET "tool_errors" = (
  SELECT count(*)::int
  FROM regexp_matches(E'\n' || (sample."output" COLLATE "C"),
      '\n*?\n(system|user|assistant|tool)\n(.*?)(?=\n(?:system|user|assistant|tool)\n|$)', 'g') AS message,
    LATERAL (
      SELECT message[2] AS response WHERE message[1] = 'tool'
      UNION ALL
      SELECT block[1] FROM regexp_matches(message[2], '<tool_response>(.*?)</tool_response>', 'g') AS block
      WHERE message[1] = 'user'
        AND regexp_replace(message[2], '<tool_response>.*?</tool_response>', '', 'g') ~ '^[ \t\n\r\f\v]*$'
    ) AS responses
  WHERE (responses.response COLLATE "C") ~ 'Traceback \(most recent call last\)|(^|\n)[ \t]*[A-Z][A-Za-z0-9_]*(Error|Exception): '
    OR (responses.response COLLATE "C") ~* 'TimeLimitExceeded|timed out|time limit exceeded|(^|\n)no stdout here(\n|$)'
)
WHERE sample."output" LIKE '%<tool_response>%' OR sample."output" LIKE E'%\ntool\n%' OR sample."output" LIKE E'tool\n%';
