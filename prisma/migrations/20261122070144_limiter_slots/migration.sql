-- AlterTable
ALTER TABLE "limiter_key" ADD COLUMN     "max_slot" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "next_start_at" TIMESTAMPTZ(6);
