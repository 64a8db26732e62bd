-- The tool responses in each sample's response that show a traceback or a time limit, counted once at import
-- (`toolErrors` in packages/rollouts/src/tool-response-signals.ts) so that the browser can filter, sort and chart
-- by them. Rows imported before are counted here by the same rules, written for Postgres's regular expressions
-- (about half a millisecond a sample of 13 KB: 53 s for the 100k samples of bench/rollouts):
-- - a message starts at each newline followed by a line that is a role's name alone (`chat-messages.ts`); the
--   two roles that carry tool responses, `tool\n` and `user\n`, are five characters long;
-- - a `tool` message is one response; a `user` message made only of `<tool_response>` blocks is one per block;
-- - COLLATE "C" keeps classes and case-folding to ASCII, as the JavaScript rules have them.
-- Texts with nothing a failure could be read from are skipped first: one scan, much cheaper than the split.
ALTER TABLE "rollout_sample" ADD COLUMN "tool_errors" INTEGER NOT NULL DEFAULT 0;

UPDATE "rollout_sample" AS sample SET "tool_errors" = (
  SELECT count(*)::int
  FROM regexp_split_to_table(sample."output" COLLATE "C", '\n(?=(?:system|user|assistant|tool)\n)') AS piece,
    LATERAL (
      SELECT substr(piece, 6) AS response WHERE piece LIKE E'tool\n%'
      UNION ALL
      -- Only a user message is searched for blocks (CASE: a set-returning call in FROM runs for every piece).
      SELECT block[1]
      FROM regexp_matches(CASE WHEN piece LIKE E'user\n%' THEN piece END, '<tool_response>(.*?)</tool_response>', 'g')
        AS block
      WHERE regexp_replace(substr(piece, 6), '<tool_response>.*?</tool_response>', '', 'g') ~ '^[ \t\n\r\f\v]*$'
    ) AS responses
  WHERE (responses.response COLLATE "C") ~ 'Traceback \(most recent call last\)|(^|\n)[ \t]*[A-Z][A-Za-z0-9_]*(Error|Exception): '
    OR (responses.response COLLATE "C") ~* 'TimeLimitExceeded|timed out|time limit exceeded|(^|\n)no stdout here(\n|$)'
)
WHERE (sample."output" COLLATE "C") ~* 'Traceback|Error: |Exception: |TimeLimitExceeded|timed out|time limit exceeded|no stdout here';
