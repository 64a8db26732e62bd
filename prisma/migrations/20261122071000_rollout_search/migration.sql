-- AlterTable
ALTER TABLE "rollout_sample" ADD COLUMN     "prompt_hash" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "search_terms" TEXT[];

-- CreateIndex
CREATE INDEX "rollout_sample_run_id_prompt_hash_idx" ON "rollout_sample"("run_id", "prompt_hash");

-- CreateIndex
CREATE INDEX "rollout_sample_search_terms_idx" ON "rollout_sample" USING GIN ("search_terms");
