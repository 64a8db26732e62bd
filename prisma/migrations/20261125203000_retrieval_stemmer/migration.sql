-- How a corpus's words are reduced to terms (@fusebox/retrieval's STEMMERS). Corpora imported before this
-- keep 'none', and so the ranking they had; imports choose ('porter' unless told otherwise).
-- AlterTable
ALTER TABLE "retrieval_corpus" ADD COLUMN "stemmer" TEXT NOT NULL DEFAULT 'none';
