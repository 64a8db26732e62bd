-- Full-text search moves from a GIN index over each sample's words to a table of which lines of a step hold
-- each word. Measured on a 20k-sample dump (265 MB), the COPY took 23 s of server CPU with the GIN index (12 s
-- of it merging 14.6 million word entries into the index, 4-5 s compressing the word arrays), and 7.6 s with
-- the samples and 347k word rows of this table. At 100k samples the GIN index outgrew shared_buffers and cost
-- more per sample still.

-- CreateTable
CREATE TABLE "rollout_term" (
    "run_id" UUID NOT NULL,
    "term" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "first_line" INTEGER NOT NULL,
    "lines" INTEGER[],

    CONSTRAINT "rollout_term_pkey" PRIMARY KEY ("run_id","term","step","first_line")
);

-- AddForeignKey
ALTER TABLE "rollout_term" ADD CONSTRAINT "rollout_term_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "rollout_run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Terms are only ever matched exactly, so byte order is enough, and much cheaper to keep a b-tree in than the
-- database's collation. A step's lines for a common word run to a few KB: pglz would spend the import's CPU to
-- save little.
ALTER TABLE "rollout_term" ALTER COLUMN "term" SET DATA TYPE TEXT COLLATE "C",
ALTER COLUMN "lines" SET STORAGE EXTERNAL;

-- Runs imported before keep their search: their words become rows here.
INSERT INTO "rollout_term" ("run_id", "term", "step", "first_line", "lines")
SELECT "run_id", "term", "step", min("line"), array_agg("line" ORDER BY "line")
FROM "rollout_sample", unnest("search_terms") AS "term"
WHERE "term" IS NOT NULL
GROUP BY "run_id", "term", "step";

-- DropIndex
DROP INDEX "rollout_sample_search_terms_idx";

-- AlterTable
ALTER TABLE "rollout_sample" DROP COLUMN "search_terms";
