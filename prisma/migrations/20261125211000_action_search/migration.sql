-- What a search task's action searched and got back: the query's tag convention and each passage returned
-- with its corpus id and BM25 score, so a session's timeline shows them without searching again. Null for
-- code actions, for search actions that asked no query, and for actions stored before this column.
-- AlterTable
ALTER TABLE "action" ADD COLUMN "search" JSONB;
